/* SPDX-License-Identifier: MIT */
/* Lock and unlock wrapped in small functions of the program. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static long ops;

static void big_lock_acquire(void)
{
	pthread_mutex_lock(&big_lock);
}

static void big_lock_release(void)
{
	pthread_mutex_unlock(&big_lock);
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++) {
		big_lock_acquire();
		ops += (long)arg + 1;
		big_lock_release();
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
	printf("ops %ld\n", ops);
	return ops == 10 * IT ? 0 : 1;
}
