/* SPDX-License-Identifier: MIT */
/*
 * pt_work wrappers: call every interposed function, through the symbol
 * version a program built today binds and through the older versions that
 * programs built against older glibc bind, then print how many calls each
 * function got ("name=N ...") so that t_wrappers.sh can check the
 * interposer's own count ($RCL_RUN_REPORT) is at least as high: a
 * bypassed wrapper shows up as a short count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "pt.h"

/* The older versions, as old binaries bind them.  The condvar ones are
 * glibc's pre-2.3.2 ABI: used together, on one condvar of their own. */
#define OLD(ret, name, sym, ver, ...)                                          \
	extern ret name(__VA_ARGS__);                                          \
	__asm__(".symver " #name "," #sym "@" ver)
OLD(int, old_mutex_trylock, pthread_mutex_trylock, "GLIBC_2.2.5",
    pthread_mutex_t *);
OLD(int, old_mutex_timedlock, pthread_mutex_timedlock, "GLIBC_2.2.5",
    pthread_mutex_t *, const struct timespec *);
OLD(int, old_mutex_clocklock, pthread_mutex_clocklock, "GLIBC_2.30",
    pthread_mutex_t *, clockid_t, const struct timespec *);
OLD(int, old_cond_init, pthread_cond_init, "GLIBC_2.2.5", pthread_cond_t *,
    const pthread_condattr_t *);
OLD(int, old_cond_destroy, pthread_cond_destroy, "GLIBC_2.2.5",
    pthread_cond_t *);
OLD(int, old_cond_wait, pthread_cond_wait, "GLIBC_2.2.5", pthread_cond_t *,
    pthread_mutex_t *);
OLD(int, old_cond_timedwait, pthread_cond_timedwait, "GLIBC_2.2.5",
    pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
OLD(int, old_cond_signal, pthread_cond_signal, "GLIBC_2.2.5", pthread_cond_t *);
OLD(int, old_cond_broadcast, pthread_cond_broadcast, "GLIBC_2.2.5",
    pthread_cond_t *);

enum {
	M_INIT,
	M_DESTROY,
	M_LOCK,
	M_TRY,
	M_UNLOCK,
	M_TIMED,
	M_CLOCK,
	C_INIT,
	C_DESTROY,
	C_WAIT,
	C_TIMED,
	C_CLOCK,
	C_SIGNAL,
	C_BCAST,
	N_FN
};
static const char *const names[N_FN] = {
	"pthread_mutex_init",	   "pthread_mutex_destroy",
	"pthread_mutex_lock",	   "pthread_mutex_trylock",
	"pthread_mutex_unlock",	   "pthread_mutex_timedlock",
	"pthread_mutex_clocklock", "pthread_cond_init",
	"pthread_cond_destroy",	   "pthread_cond_wait",
	"pthread_cond_timedwait",  "pthread_cond_clockwait",
	"pthread_cond_signal",	   "pthread_cond_broadcast",
};
static int calls[N_FN];
/* Count a call we make, then make it. */
#define CALL(fn, expr) (calls[fn]++, (expr))

static pthread_mutex_t m;
static pthread_cond_t c_new, c_old;
static int flag_new, flag_old;

static struct timespec soon(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	t.tv_nsec += 5 * 1000 * 1000;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Holds m to set the flag, so the waiter surely waited at least once. */
static void *signaller(void *arg)
{
	int old = arg != NULL;

	CHECK(CALL(M_LOCK, pthread_mutex_lock(&m)));
	if (old) {
		flag_old = 1;
		CHECK(CALL(C_SIGNAL, old_cond_signal(&c_old)));
		CHECK(CALL(C_BCAST, old_cond_broadcast(&c_old)));
	} else {
		flag_new = 1;
		CHECK(CALL(C_SIGNAL, pthread_cond_signal(&c_new)));
		CHECK(CALL(C_BCAST, pthread_cond_broadcast(&c_new)));
	}
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	return NULL;
}

static void mutexes(void)
{
	struct timespec t;

	CHECK(CALL(M_INIT, pthread_mutex_init(&m, NULL)));
	CHECK(CALL(M_TRY, pthread_mutex_trylock(&m)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	CHECK(CALL(M_TRY, old_mutex_trylock(&m)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	t = soon(CLOCK_REALTIME);
	CHECK(CALL(M_TIMED, pthread_mutex_timedlock(&m, &t)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	CHECK(CALL(M_TIMED, old_mutex_timedlock(&m, &t)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	t = soon(CLOCK_MONOTONIC);
	CHECK(CALL(M_CLOCK, pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &t)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	CHECK(CALL(M_CLOCK, old_mutex_clocklock(&m, CLOCK_MONOTONIC, &t)));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
}

void wrappers(void)
{
	struct timespec t;
	pthread_t thr;

	mutexes();
	CHECK(CALL(C_INIT, pthread_cond_init(&c_new, NULL)));
	CHECK(CALL(C_INIT, old_cond_init(&c_old, NULL)));
	CHECK(CALL(M_LOCK, pthread_mutex_lock(&m)));
	t = soon(CLOCK_REALTIME);
	EXPECT(CALL(C_TIMED, pthread_cond_timedwait(&c_new, &m, &t)),
	       ETIMEDOUT);
	t = soon(CLOCK_REALTIME);
	EXPECT(CALL(C_TIMED, old_cond_timedwait(&c_old, &m, &t)), ETIMEDOUT);
	t = soon(CLOCK_MONOTONIC);
	EXPECT(CALL(C_CLOCK,
		    pthread_cond_clockwait(&c_new, &m, CLOCK_MONOTONIC, &t)),
	       ETIMEDOUT);
	CHECK(pthread_create(&thr, NULL, signaller, NULL));
	while (!flag_new)
		CHECK(CALL(C_WAIT, pthread_cond_wait(&c_new, &m)));
	CHECK(pthread_join(thr, NULL));
	CHECK(pthread_create(&thr, NULL, signaller, (void *)names));
	while (!flag_old)
		CHECK(CALL(C_WAIT, old_cond_wait(&c_old, &m)));
	CHECK(pthread_join(thr, NULL));
	CHECK(CALL(M_UNLOCK, pthread_mutex_unlock(&m)));
	CHECK(CALL(C_DESTROY, pthread_cond_destroy(&c_new)));
	CHECK(CALL(C_DESTROY, old_cond_destroy(&c_old)));
	CHECK(CALL(M_DESTROY, pthread_mutex_destroy(&m)));
	for (int i = 0; i < N_FN; i++)
		printf("%s%s=%d", i ? " " : "", names[i], calls[i]);
	printf("\n");
}
