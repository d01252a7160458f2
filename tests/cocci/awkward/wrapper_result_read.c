/* SPDX-License-Identifier: MIT */
/* A signal helper that checks pthread's result (and aborts when it
   fails) and returns a result of its own, true, which the caller tests.
   Renamed to liblock_cond_signal(), the call would give 0 and the test
   would count a failure that never happened: the condition (and so its
   mutex) stays POSIX. */
/* expect: refused checks pthread's result and its own is read */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready, failures;

static bool wake(pthread_cond_t *cv)
{
	if (pthread_cond_signal(cv))
		abort();
	return true;
}

static void *poster(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	ready = 1;
	if (!wake(&c))
		failures++;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, poster, NULL);
	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	printf("ready %d failures %d\n", ready, failures);
	return failures == 0 ? 0 : 1;
}
