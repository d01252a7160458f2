/* SPDX-License-Identifier: MIT */
/* Names no lock in its code: it only gives totals.mu and
 * clock_stamp.guard their initial value. */
#include <stdio.h>
#include "tally.h"

#define NT 4
#define IT 5000

struct tally totals = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
stamp_t clock_stamp = { PTHREAD_MUTEX_INITIALIZER, 100 };

static void *worker(void *arg)
{
	long sum = 0;

	for (int i = 0; i < IT; i++) {
		int v = table_value(i + (int)(long)arg);
		tally_hit(&totals, v > 8);
		sum += (long)(stamp_next(&clock_stamp) > 100);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t t[NT];
	long sum = 0;
	void *r;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("hits %ld misses %ld stamps %ld last %lu\n", totals.hits,
	       totals.misses, sum, clock_stamp.last);
	return totals.hits + totals.misses == NT * IT ? 0 : 1;
}
