/* SPDX-License-Identifier: MIT */
/*
 * Behaviour corpus: a bounded queue in a structure, its mutex and two
 * condition variables initialised with pthread_*_init; producers and
 * consumers wait inside sections; a consumer leaves its loop with break.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CAP 8
#define NPROD 1
#define NCONS 1
#define ITEMS 300

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty;
	pthread_cond_t not_full;
	int buf[CAP];
	int head, count, closed;
};

static struct queue q;
static long consumed_sum[NCONS];

static void queue_put(struct queue *qu, int v)
{
	pthread_mutex_lock(&qu->lock);
	while (qu->count == CAP)
		pthread_cond_wait(&qu->not_full, &qu->lock);
	qu->buf[(qu->head + qu->count) % CAP] = v;
	qu->count++;
	pthread_cond_signal(&qu->not_empty);
	pthread_mutex_unlock(&qu->lock);
}

/* Returns 0 and the value in *out, or -1 once the queue is closed and
 * empty. */
static int queue_get(struct queue *qu, int *out)
{
	int v;

	pthread_mutex_lock(&qu->lock);
	while (qu->count == 0 && !qu->closed)
		pthread_cond_wait(&qu->not_empty, &qu->lock);
	if (qu->count == 0) {
		pthread_mutex_unlock(&qu->lock);
		return -1;
	}
	v = qu->buf[qu->head];
	qu->head = (qu->head + 1) % CAP;
	qu->count--;
	pthread_cond_signal(&qu->not_full);
	pthread_mutex_unlock(&qu->lock);
	*out = v;
	return 0;
}

static void *producer(void *arg)
{
	int base = (int)(long)arg * ITEMS, i;

	for (i = 1; i <= ITEMS; i++)
		queue_put(&q, base + i);
	return NULL;
}

static void *consumer(void *arg)
{
	long id = (long)arg;
	int v, n = 0;

	for (;;) {
		int stop = 0;

		pthread_mutex_lock(&q.lock);
		if (q.closed && q.count == 0) {
			pthread_mutex_unlock(&q.lock);
			break;
		}
		stop = q.count < 0;
		pthread_mutex_unlock(&q.lock);
		if (stop)
			abort();
		if (queue_get(&q, &v) < 0)
			break;
		consumed_sum[id] += v;
		n++;
	}
	return n > 0 ? NULL : (void *)1;
}

int main(void)
{
	pthread_t p[NPROD], c[NCONS];
	long i, total = 0, want = 0;

	if (pthread_mutex_init(&q.lock, NULL) != 0 ||
	    pthread_cond_init(&q.not_empty, NULL) != 0 ||
	    pthread_cond_init(&q.not_full, NULL) != 0)
		return 2;
	for (i = 0; i < NCONS; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	for (i = 0; i < NPROD; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	pthread_mutex_lock(&q.lock);
	q.closed = 1;
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
	for (i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	for (i = 0; i < NCONS; i++)
		total += consumed_sum[i];
	for (i = 0; i < (long)NPROD * ITEMS; i++)
		want += i + 1;
	printf("sum %ld (want %ld)\n", total, want);
	pthread_cond_destroy(&q.not_empty);
	pthread_cond_destroy(&q.not_full);
	pthread_mutex_destroy(&q.lock);
	return total == want ? 0 : 1;
}
