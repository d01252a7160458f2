/* SPDX-License-Identifier: MIT */
/* A function that returns with the lock held; its caller unlocks. */
/* expect: held unlock in another function */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static long *grab(void)
{
	pthread_mutex_lock(&m);
	return &n;
}

static void release(void)
{
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		long *p = grab();

		(*p)++;
		release();
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
