/* SPDX-License-Identifier: MIT */
/* One initialiser macro for two mutexes, one of which must stay POSIX (its
 * priority ceiling is read with pthread_mutex_getprioceiling(), which
 * liblock does not offer).
 * The macro's body cannot be both initialisers: the other mutex stays
 * POSIX too, with the reason, and the program is left as it is. */
/* expect: refused which also initialises */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define LOCK_INIT PTHREAD_MUTEX_INITIALIZER

static pthread_mutex_t queue_lock = LOCK_INIT;
static pthread_mutex_t stats_lock = LOCK_INIT;
static long queued, counted;

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5000; i++) {
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 5;
		if (pthread_mutex_timedlock(&queue_lock, &dl) != 0)
			return NULL;
		queued++;
		pthread_mutex_unlock(&queue_lock);
		pthread_mutex_lock(&stats_lock);
		counted++;
		pthread_mutex_unlock(&stats_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int ceiling;

	/* a plain mutex has none: EINVAL, whatever it returns is ignored */
	(void)pthread_mutex_getprioceiling(&queue_lock, &ceiling);

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, producer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("queued %ld counted %ld\n", queued, counted);
	return queued == 10000 && counted == 10000 ? 0 : 1;
}
