/* SPDX-License-Identifier: MIT */
/* The textbook shape: main() owns the mutex and hands its address to
   each thread as pthread_create()'s argument; the start routine takes it
   back from its `void *` parameter.  The argument was not followed into
   the start routine, and the lock stayed POSIX ("used outside"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

static long counter;

static void *worker(void *arg)
{
	pthread_mutex_t *m = arg;
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(m);
		counter++;
		pthread_mutex_unlock(m);
	}
	return NULL;
}

int main(void)
{
	pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &mtx);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", counter);
	pthread_mutex_destroy(&mtx);
	return counter == 400000 ? 0 : 1;
}
