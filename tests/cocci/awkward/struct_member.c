/* SPDX-License-Identifier: MIT */
/* A lock that is a member of a structure reached through a pointer. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct counter {
	pthread_mutex_t lock;
	long value;
	long max;
};

static struct counter ctr;

static long counter_add(struct counter *c, long d)
{
	long v;

	pthread_mutex_lock(&c->lock);
	c->value += d;
	if (c->value > c->max)
		c->max = c->value;
	v = c->value;
	pthread_mutex_unlock(&c->lock);
	return v;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		counter_add(&ctr, i % 2 ? -1 : 2);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	pthread_mutex_init(&ctr.lock, NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&ctr.lock);
	printf("value %ld\n", ctr.value);
	return ctr.value == NT * IT / 2 && ctr.max >= ctr.value ? 0 : 1;
}
