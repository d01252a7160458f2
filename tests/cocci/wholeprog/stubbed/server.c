/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include "stats.h"

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		count_get(i & 1);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("server %ld\n", gets_total());
	return 0;
}
