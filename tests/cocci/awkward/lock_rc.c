/* SPDX-License-Identifier: MIT */
/* The lock call's result is kept and tested: int rc =
   pthread_mutex_lock(...); if (rc != 0) abort();.  Locking a plain mutex
   gives 0: the section is delegated, rc gets 0 and the test stays. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void add(long d)
{
	int rc = pthread_mutex_lock(&m);

	if (rc != 0)
		abort();
	n += d;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++)
		add((long)arg);
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
	return n == 6 * IT ? 0 : 1;
}
