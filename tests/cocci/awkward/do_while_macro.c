/* SPDX-License-Identifier: MIT */
/* Lock and unlock macros wrapped in do { } while (0). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define STATS_LOCK() do { pthread_mutex_lock(&stats_lock); } while (0)
#define STATS_UNLOCK() do { pthread_mutex_unlock(&stats_lock); } while (0)

#define NT 4
#define IT 500

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	long gets, sets;
} stats;

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++) {
		STATS_LOCK();
		if ((long)arg & 1)
			stats.sets++;
		else
			stats.gets++;
		STATS_UNLOCK();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("gets %ld sets %ld\n", stats.gets, stats.sets);
	return stats.gets == NT * IT / 2 && stats.sets == NT * IT / 2 ? 0 : 1;
}
