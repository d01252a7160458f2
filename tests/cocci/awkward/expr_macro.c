/* SPDX-License-Identifier: MIT */
/* Lock macros that are expressions around the call: they abort when the
   call fails, and do nothing else once it gives 0 (checked.py). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LOCK(m) (void)(pthread_mutex_lock(m) && (abort(), 0))
#define UNLOCK(m) (void)(pthread_mutex_unlock(m) && (abort(), 0))

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		LOCK(&m);
		n++;
		UNLOCK(&m);
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
	printf("n %ld\n", n);
	return n == NT * IT ? 0 : 1;
}
