/* SPDX-License-Identifier: MIT */
/* A structure's static initialiser behind an object-like macro of the
 * project, `#define GUARD_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0 }`,
 * as libraries write for their own lock types: the mutex field becomes
 * liblock's, so the macro's PTHREAD_MUTEX_INITIALIZER must become
 * liblock's initialiser too. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

typedef struct guard {
	pthread_mutex_t mutex;
	long n;
} guard_t;

#define GUARD_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, 0}

static guard_t hits = GUARD_INITIALIZER;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&hits.mutex);
		hits.n++;
		pthread_mutex_unlock(&hits.mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("n=%ld\n", hits.n);
	return hits.n == 3000 ? 0 : 1;
}
