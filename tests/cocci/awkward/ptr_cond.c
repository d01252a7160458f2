/* SPDX-License-Identifier: MIT */
/* A work queue whose mutex is reached through pointer locals: one
   initialised at its declaration, one assigned in a statement; the
   condition wait inside the section passes the pointer local. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t nonempty;
	long items, taken;
};

static struct queue q;

static void *consumer(void *arg)
{
	pthread_mutex_t *m = &q.mu;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(m);
		while (q.items == 0)
			pthread_cond_wait(&q.nonempty, m);
		q.items--;
		q.taken++;
		pthread_mutex_unlock(m);
	}
	return NULL;
}

static void *producer(void *arg)
{
	pthread_mutex_t *m;
	int i;

	(void)arg;
	m = &q.mu;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(m);
		q.items++;
		pthread_cond_signal(&q.nonempty);
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(void)
{
	pthread_t c[NT], p[NT];
	int i;

	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.nonempty, NULL);
	for (i = 0; i < NT; i++) {
		pthread_create(&c[i], NULL, consumer, NULL);
		pthread_create(&p[i], NULL, producer, NULL);
	}
	for (i = 0; i < NT; i++) {
		pthread_join(c[i], NULL);
		pthread_join(p[i], NULL);
	}
	printf("taken %ld left %ld\n", q.taken, q.items);
	return q.taken == NT * IT && q.items == 0 ? 0 : 1;
}
