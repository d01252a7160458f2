/* SPDX-License-Identifier: MIT */
/* memcached's thread.c: the real STATS_LOCK()/STATS_UNLOCK(). */
#include <pthread.h>
#include "stats.h"

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void STATS_LOCK(void)
{
	pthread_mutex_lock(&stats_lock);
}

void STATS_UNLOCK(void)
{
	pthread_mutex_unlock(&stats_lock);
}
