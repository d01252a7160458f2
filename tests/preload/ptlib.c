/* SPDX-License-Identifier: MIT */
/*
 * A library that uses mutexes, for pt_abuse: its constructor creates,
 * locks and waits on them (as a dependency of the program it runs before
 * the preloaded interposer's constructor), and ptlib_work() runs threads
 * through them.  Built twice: libptlib (linked to pt_abuse) and libptdl
 * (loaded with dlopen()).
 * Each returns 0, or the line of the first check that failed.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#define LIB_API __attribute__((visibility("default")))

static int ctor_result = -1;

static pthread_mutex_t lib_static = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lib_dyn, lib_rec;
static pthread_cond_t lib_cond = PTHREAD_COND_INITIALIZER;
static long lib_count;

#define TRY(expr)                                                              \
	do {                                                                   \
		if ((expr) != 0)                                               \
			return __LINE__;                                       \
	} while (0)

static int ctor_checks(void)
{
	pthread_mutexattr_t a;
	struct timespec t;

	TRY(pthread_mutex_lock(&lib_static));
	TRY(pthread_mutex_unlock(&lib_static));
	TRY(pthread_mutex_init(&lib_dyn, NULL));
	TRY(pthread_mutexattr_init(&a));
	TRY(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE));
	TRY(pthread_mutex_init(&lib_rec, &a));
	TRY(pthread_mutexattr_destroy(&a));
	TRY(pthread_mutex_lock(&lib_rec));
	TRY(pthread_mutex_lock(&lib_rec));
	TRY(pthread_mutex_unlock(&lib_rec));
	TRY(pthread_mutex_unlock(&lib_rec));
	TRY(pthread_mutex_lock(&lib_dyn));
	TRY(clock_gettime(CLOCK_REALTIME, &t));
	t.tv_nsec = 0; /* in the past: times out at once */
	if (pthread_cond_timedwait(&lib_cond, &lib_dyn, &t) != ETIMEDOUT)
		return __LINE__;
	TRY(pthread_mutex_unlock(&lib_dyn));
	return 0;
}

static __attribute__((constructor)) void ptlib_init(void)
{
	ctor_result = ctor_checks();
}

/* What the constructor found (static, so that each copy of the library
 * reports its own). */
LIB_API int ptlib_ctor(void)
{
	return ctor_result;
}

static void *worker(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		if (pthread_mutex_lock(&lib_dyn) != 0)
			return arg;
		lib_count++;
		if (pthread_mutex_unlock(&lib_dyn) != 0)
			return arg;
	}
	return NULL;
}

LIB_API int ptlib_work(void)
{
	pthread_t t[4];
	void *res;
	int bad = 0;

	lib_count = 0;
	for (int i = 0; i < 4; i++)
		TRY(pthread_create(&t[i], NULL, worker, &bad));
	for (int i = 0; i < 4; i++) {
		TRY(pthread_join(t[i], &res));
		if (res)
			bad = __LINE__;
	}
	if (bad)
		return bad;
	return lib_count == 4 * 20000 ? 0 : __LINE__;
}
