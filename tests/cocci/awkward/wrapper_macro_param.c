/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Lock helpers that take the mutex as a parameter and die on error,
   reached only through the project's short macros (LOCK(x) -> xlock(x)).
   Once every use is transformed the helpers have no caller left: they
   must stay, marked unused, for the build's -Werror. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void xlock(pthread_mutex_t *m)
{
	if (pthread_mutex_lock(m) != 0)
		abort();
}

static void xunlock(pthread_mutex_t *m)
{
	if (pthread_mutex_unlock(m) != 0)
		abort();
}

#define LOCK(m) xlock(m)
#define UNLOCK(m) xunlock(m)

struct queue {
	pthread_mutex_t mu;
	int items[64];
	int head, tail;
	long pushed, popped;
};

static struct queue q = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int push(struct queue *qu, int v)
{
	int ok = 0;

	LOCK(&qu->mu);
	if (qu->tail - qu->head < 64) {
		qu->items[qu->tail++ % 64] = v;
		qu->pushed++;
		ok = 1;
	}
	UNLOCK(&qu->mu);
	return ok;
}

static int pop(struct queue *qu, int *v)
{
	int ok = 0;

	LOCK(&qu->mu);
	if (qu->head < qu->tail) {
		*v = qu->items[qu->head++ % 64];
		qu->popped++;
		ok = 1;
	}
	UNLOCK(&qu->mu);
	return ok;
}

static void *producer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20000; i++)
		while (!push(&q, i))
			;
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;
	int i, v;

	(void)arg;
	for (i = 0; i < 20000; i++) {
		while (!pop(&q, &v))
			;
		sum += v;
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t p, c;
	void *sum;

	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	printf("pushed %ld popped %ld sum %ld\n", q.pushed, q.popped,
	       (long)sum);
	return (long)sum == 20000L * 19999 / 2 ? 0 : 1;
}
