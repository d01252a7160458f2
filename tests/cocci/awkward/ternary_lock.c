/* SPDX-License-Identifier: MIT */
/* The lock chosen by a conditional expression in the call. */
/* expect: refused lock */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t even_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t odd_lock = PTHREAD_MUTEX_INITIALIZER;
static long even_n, odd_n;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(i & 1 ? &odd_lock : &even_lock);
		if (i & 1)
			odd_n++;
		else
			even_n++;
		pthread_mutex_unlock(i & 1 ? &odd_lock : &even_lock);
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
	printf("even %ld odd %ld\n", even_n, odd_n);
	return even_n == NT * IT / 2 && odd_n == NT * IT / 2 ? 0 : 1;
}
