/* SPDX-License-Identifier: MIT */
/* mbuffer's shape: every section checks its lock and unlock with
   assert(), and the program cancels a thread elsewhere.  A failed
   assert() ends the process, so __assert_fail() is no cancellation point
   to keep the lock POSIX for (nor is abort()): the sections move. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 20000; i++) {
		int err = pthread_mutex_lock(&m);
		assert(err == 0);
		total += id;
		if (total < 0)
			abort();
		err = pthread_mutex_unlock(&m);
		assert(err == 0);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t t[4], s;

	pthread_create(&s, NULL, sleeper, NULL);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_cancel(s);
	pthread_join(s, NULL);
	printf("total %ld\n", total);
	return 0;
}
