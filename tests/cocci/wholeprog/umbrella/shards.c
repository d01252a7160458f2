/* SPDX-License-Identifier: MIT */
#include "shards.h"

pthread_mutex_t shard_locks[NSHARDS];
long shard_sum[NSHARDS];

void shards_init(void)
{
	for (int i = 0; i < NSHARDS; i++)
		pthread_mutex_init(&shard_locks[i], NULL);
}

void shards_add(unsigned key, long v)
{
	unsigned s = key % NSHARDS;

	pthread_mutex_lock(&shard_locks[s]);
	shard_sum[s] += v;
	pthread_mutex_unlock(&shard_locks[s]);
}
