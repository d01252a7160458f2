/* SPDX-License-Identifier: MIT */
#include "tally.h"

struct tally totals = {PTHREAD_MUTEX_INITIALIZER, 0, 0};

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < 1000; i++) {
		if (id & 1)
			add_strict(i);
		else
			add_plain(i);
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
	printf("n=%ld sum=%ld\n", totals.n, totals.sum);
	return 0;
}
