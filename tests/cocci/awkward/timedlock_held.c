/* SPDX-License-Identifier: MIT */
/* expect: held taken with pthread_mutex_timedlock() */
/* A lock also taken with pthread_mutex_timedlock() (a watchdog that gives
   up after a deadline): that section is held, its call becomes
   liblock_timedlock() on the lock word, and the lock's plain section is
   still delegated.  (It kept the lock POSIX when liblock had no timed
   lock.) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total, late;

static void add(long v)
{
	pthread_mutex_lock(&m);
	total += v;
	pthread_mutex_unlock(&m);
}

static int add_before(long v, int seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += seconds;
	if (pthread_mutex_timedlock(&m, &ts) != 0) {
		late++;
		return -1;
	}
	total += v;
	pthread_mutex_unlock(&m);
	return 0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		add(i);
		add_before(1, 5);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", total, late);
	return 0;
}
