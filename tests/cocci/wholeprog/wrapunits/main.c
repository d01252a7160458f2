/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "guard.h"

static guard_t tally_guard = {PTHREAD_MUTEX_INITIALIZER};
static long tally_n, tally_sum;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 1000; i++) {
		guard_acquire(&tally_guard);
		tally_n++;
		tally_sum += id * i;
		guard_release(&tally_guard);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("n=%ld sum=%ld\n", tally_n, tally_sum);
	return 0;
}
