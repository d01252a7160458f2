/* SPDX-License-Identifier: MIT */
/* expect: held floating-point environment */
/* libs: -lm */
/* An interval accumulator: the lower bound is summed rounding down, the
   upper bound rounding up, each under the accumulator's lock.  The
   rounding mode is the calling thread's; another thread would sum in its
   own (round-to-nearest). */
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>

#define NT 2
#define IT 1000

struct interval_sum {
	pthread_mutex_t lock;
	double lo, hi;
};

static struct interval_sum acc = { PTHREAD_MUTEX_INITIALIZER, 0.0, 0.0 };
static volatile double tenth = 0.1;

static void add_bounds(struct interval_sum *s, double x)
{
	int old = fegetround();

	fesetround(FE_DOWNWARD);
	pthread_mutex_lock(&s->lock);
	s->lo += x;
	pthread_mutex_unlock(&s->lock);
	fesetround(FE_UPWARD);
	pthread_mutex_lock(&s->lock);
	s->hi += x;
	pthread_mutex_unlock(&s->lock);
	fesetround(old);
}

static void *adder(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		add_bounds(&acc, tenth);
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, adder, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	/* the same additions in another order give other roundings: print
	   only what every order guarantees */
	printf("lo<hi %d lo<=200 %d hi>=200 %d\n", acc.lo < acc.hi,
	       acc.lo <= 200.0, acc.hi >= 200.0);
	return acc.lo < acc.hi ? 0 : 1;
}
