/* SPDX-License-Identifier: MIT */
/* The shard table: one mutex per shard, declared here, defined in
 * shards.c.  rcl-refactor rewrites this header. */
#ifndef SHARDS_H
#define SHARDS_H
#include <pthread.h>

#define NSHARDS 4

extern pthread_mutex_t shard_locks[NSHARDS];
extern long shard_sum[NSHARDS];

void shards_init(void);
void shards_add(unsigned key, long v);
#endif
