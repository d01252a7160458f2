/* SPDX-License-Identifier: MIT */
/* expect: refused parameter 'arg' of worker() */
/* Threads started on one of two mutexes picked by a conditional
 * expression: the start routine's `void *` parameter may carry either,
 * which the tool cannot tell apart at the lock call.  The section is
 * refused with where the parameter gets its value (the lock was named
 * "arg" before, a name no declaration of a mutex has). */
#include <pthread.h>
#include <stdio.h>

static long c1, c2;
static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	pthread_mutex_t *m = arg;
	long *c = m == &m1 ? &c1 : &c2;
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(m);
		(*c)++;
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, i % 2 ? &m1 : &m2);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", c1, c2);
	return c1 + c2 == 400000 ? 0 : 1;
}
