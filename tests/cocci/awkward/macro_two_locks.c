/* SPDX-License-Identifier: MIT */
/* One counting macro used with two locks: 'plain_lock' could be
   converted, but 'rec_lock' is a recursive mutex that other processes
   may share, which stays POSIX.
   The macro's body is one text for both expansions, so its calls cannot
   become liblock's for one lock only: both locks stay POSIX, the reason
   naming the macro and the other lock.  'other_lock', used without the
   macro, is still converted. */
/* expect: refused which also locks rec_lock */
/* expect: refused other processes may take it */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t plain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec_lock;
static pthread_mutex_t other_lock = PTHREAD_MUTEX_INITIALIZER;
static long plain_n, rec_n, other_n;

#define BUMP(m, counter)                   \
	{                                  \
		pthread_mutex_lock(m);     \
		(counter)++;               \
		pthread_mutex_unlock(m);   \
	}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		BUMP(&plain_lock, plain_n);
		BUMP(&rec_lock, rec_n);
		pthread_mutex_lock(&other_lock);
		other_n += 2;
		pthread_mutex_unlock(&other_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	pthread_mutexattr_t a;
	long i;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&rec_lock, &a);
	pthread_mutexattr_destroy(&a);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("plain %ld rec %ld other %ld\n", plain_n, rec_n, other_n);
	pthread_mutex_destroy(&rec_lock);
	return 0;
}
