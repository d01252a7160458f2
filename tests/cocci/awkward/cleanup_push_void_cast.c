/* SPDX-License-Identifier: MIT */
/* squashfs-tools' queues: every section pushes pthread_mutex_unlock as
   its cancellation cleanup handler, cast to `void *`, then locks, and
   pthread_cleanup_pop(1) releases the lock at the end.  `&q->mutex`
   given to pthread_cleanup_push() through that cast kept the lock POSIX
   ("used outside lock/unlock calls"): the handler is read through any
   cast, becomes liblock's, and the sections run in place on the lock
   word (the consumer's waits on the queue's conditions included). */
/* expect: held unlocked by the cleanup handler pushed at line */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 8
#define ITEMS 4000

struct queue {
	int size, readp, writep;
	pthread_mutex_t mutex;
	pthread_cond_t empty, full;
	long data[SLOTS + 1];
};

static struct queue *queue_init(int size)
{
	struct queue *q = calloc(1, sizeof(*q));

	if (!q)
		abort();
	q->size = size + 1;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->empty, NULL);
	pthread_cond_init(&q->full, NULL);
	return q;
}

static void queue_put(struct queue *q, long v)
{
	int nextp;

	pthread_cleanup_push((void *)pthread_mutex_unlock, &q->mutex);
	pthread_mutex_lock(&q->mutex);
	while ((nextp = (q->writep + 1) % q->size) == q->readp)
		pthread_cond_wait(&q->full, &q->mutex);
	q->data[q->writep] = v;
	q->writep = nextp;
	pthread_cond_signal(&q->empty);
	pthread_cleanup_pop(1);
}

static long queue_get(struct queue *q)
{
	long v;

	pthread_cleanup_push((void *)pthread_mutex_unlock, &q->mutex);
	pthread_mutex_lock(&q->mutex);
	while (q->readp == q->writep)
		pthread_cond_wait(&q->empty, &q->mutex);
	v = q->data[q->readp];
	q->readp = (q->readp + 1) % q->size;
	pthread_cond_signal(&q->full);
	pthread_cleanup_pop(1);
	return v;
}

static void *producer(void *arg)
{
	struct queue *q = arg;

	for (long i = 1; i <= ITEMS; i++)
		queue_put(q, i);
	queue_put(q, 0);
	return NULL;
}

int main(void)
{
	struct queue *q = queue_init(SLOTS);
	pthread_t t;
	long sum = 0, v;

	pthread_create(&t, NULL, producer, q);
	while ((v = queue_get(q)) != 0)
		sum += v;
	pthread_join(t, NULL);
	printf("%ld\n", sum);
	pthread_cond_destroy(&q->full);
	pthread_cond_destroy(&q->empty);
	pthread_mutex_destroy(&q->mutex);
	free(q);
	return 0;
}
