/* SPDX-License-Identifier: MIT */
/* Includes only the umbrella header: the lock array's type comes from
 * shards.h through app.h. */
#include <stdio.h>

#include "app.h"

static void *worker(void *arg)
{
	unsigned id = (unsigned)(unsigned long)arg;

	for (unsigned i = 0; i < ROUNDS; i++)
		shards_add(i * 7 + id, (long)(i % 13));
	return NULL;
}

static long total(void)
{
	long t = 0;

	for (int i = 0; i < NSHARDS; i++) {
		pthread_mutex_lock(&shard_locks[i]);
		t += shard_sum[i];
		pthread_mutex_unlock(&shard_locks[i]);
	}
	return t;
}

int main(void)
{
	pthread_t th[WORKERS];

	shards_init();
	for (unsigned long i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NSHARDS; i++)
		printf("shard %d: %ld\n", i, shard_sum[i]);
	printf("total %ld\n", total());
	return 0;
}
