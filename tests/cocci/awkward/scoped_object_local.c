/* SPDX-License-Identifier: MIT */
/* An object-like scoped lock macro naming `lk` in its lock calls, where
   one function declares a lock of its own called `lk`: there the macro
   locks that local one, not the global.  The macro's lock must be the
   same global at every use, so that use is refused (its lock expression
   names a local), and the mutexes stay POSIX. */
/* expect: refused its lock expression names lk, a local or parameter */
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define ROUNDS 300

#define WITH_LK                                                  \
	for (int lk_held_ = (pthread_mutex_lock(&lk), 1); lk_held_; \
	     lk_held_ = (pthread_mutex_unlock(&lk), 0))

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static long shared;

static long private_count(void)
{
	static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
	static long calls;
	long n;

	WITH_LK { n = ++calls; }
	return n;
}

static void *work(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		WITH_LK { shared++; }
		private_count();
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	long s;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, work, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	WITH_LK { s = shared; }
	printf("shared %ld private %ld\n", s, private_count() - 1);
	return s == THREADS * ROUNDS ? 0 : 1;
}
