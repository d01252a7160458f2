/* A project's counters: the sections are in the header's static inline
 * helpers, which every unit that includes it gets a copy of (idle.c
 * calls none of them). */
#ifndef COUNTER_H
#define COUNTER_H
#include <pthread.h>

struct counter {
	pthread_mutex_t lock;
	long n;
	long max;
};

extern struct counter hits;

static inline void counter_add(struct counter *c, long v)
{
	pthread_mutex_lock(&c->lock);
	c->n += v;
	if (c->n > c->max)
		c->max = c->n;
	pthread_mutex_unlock(&c->lock);
}

static inline long counter_get(struct counter *c)
{
	long v;

	pthread_mutex_lock(&c->lock);
	v = c->n;
	pthread_mutex_unlock(&c->lock);
	return v;
}

void work(void);
int idle_ticks(void);
#endif
