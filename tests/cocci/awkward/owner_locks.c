/* SPDX-License-Identifier: MIT */
/* Mutexes whose owner matters, taken or released by a helper that a
   section of another lock calls while the calling thread owns them: a
   library's recursive API lock, read again by a configuration getter
   (pthread_mutex_init() with a recursive attribute), and an
   error-checking output lock (glibc's static initialiser) that a flush
   helper releases, checking the result.  Both become liblock locks of
   their type.  The stats sections that call the helpers are held: on the
   server thread the getter would wait for a lock its own client holds,
   and the release would fail with EPERM. */
/* expect: held 'api_lock' is initialised with attributes */
/* expect: held 'out_lock' is initialised with PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 200

static pthread_mutex_t api_lock;
static pthread_mutex_t out_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static int verbosity = 2;
static long weighted, flushed, bad_unlocks, lines;

static int get_verbosity(void)
{
	int v;

	pthread_mutex_lock(&api_lock);
	v = verbosity;
	pthread_mutex_unlock(&api_lock);
	return v;
}

static void flush_and_release(void)
{
	flushed++;
	if (pthread_mutex_unlock(&out_lock) != 0)
		bad_unlocks++;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&api_lock);
		pthread_mutex_lock(&stats_lock);
		weighted += get_verbosity();
		pthread_mutex_unlock(&stats_lock);
		pthread_mutex_unlock(&api_lock);

		pthread_mutex_lock(&out_lock);
		lines++;
		pthread_mutex_lock(&stats_lock);
		flush_and_release();
		pthread_mutex_unlock(&stats_lock);
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
	pthread_mutex_init(&api_lock, &a);
	pthread_mutexattr_destroy(&a);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("weighted %ld lines %ld flushed %ld bad unlocks %ld\n",
	       weighted, lines, flushed, bad_unlocks);
	return weighted == 2L * NT * IT && flushed == NT * IT &&
			       bad_unlocks == 0
		       ? 0
		       : 1;
}
