/* SPDX-License-Identifier: MIT */
/*
 * The interposed pthread functions.
 *
 * Timestamps of one hold (docs/PROFILER.md):
 *   t_call  the lock call is entered       t_acq   it returns, lock held
 *   t_rel   the unlock call is entered     t_done  it returns
 * wait = t_acq - t_call (contended acquisitions), hold = t_rel - t_acq,
 * cs = t_done - t_call (the thesis's "time in critical section including
 * acquisition and release").
 *
 * pthread_mutex_lock first tries the real trylock: success is the
 * uncontended path (two TSC reads, a table lookup, a seqlock read, plain
 * stores to the thread's own block); failure counts a contended
 * acquisition and registers the thread as a waiter of the mutex for the
 * blame integral.  pthread_cond_wait closes the hold at entry (the mutex
 * is released inside) and opens a new one at return.
 *
 * Every wrapper is exported unversioned: the dynamic linker binds an
 * unversioned definition to a versioned reference, so programs built
 * against pthread_create@GLIBC_2.34 or pthread_cond_wait@GLIBC_2.3.2 reach
 * these (tests/profiler/t_wrappers.sh checks each one).
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <errno.h>
#include <stdlib.h>

#define CALLER ((const void *)__builtin_return_address(0))

/* True while the real functions are not known (early start-up). */
static inline bool unresolved(void)
{
	if (prof_likely(prof_real.mutex_unlock != NULL))
		return false;
	prof_resolve();
	return prof_real.mutex_unlock == NULL;
}

/* How a lock or wait call blocks: which call, and its deadline. */
struct how {
	enum prof_call call;
	clockid_t clock;
	const struct timespec *abstime;
};

static int real_lock(pthread_mutex_t *m, const struct how *h)
{
	if (h->call == PC_TIMEDLOCK)
		return prof_real.mutex_timedlock(m, h->abstime);
	if (h->call == PC_CLOCKLOCK)
		return prof_real.mutex_clocklock(m, h->clock, h->abstime);
	return prof_real.mutex_lock(m);
}

static int real_wait(pthread_cond_t *c, pthread_mutex_t *m, const struct how *h)
{
	if (h->call == PC_COND_TIMEDWAIT)
		return prof_real.cond_timedwait(c, m, h->abstime);
	if (h->call == PC_COND_CLOCKWAIT)
		return prof_real.cond_clockwait(c, m, h->clock, h->abstime);
	return prof_real.cond_wait(c, m);
}

static struct prof_stat *stat_of(struct prof_thread *th, int site)
{
	if (site >= th->max_site)
		th->max_site = site + 1;
	return &th->stat[site];
}

PROF_API int pthread_mutex_init(pthread_mutex_t *m,
				const pthread_mutexattr_t *a)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	int rc;

	if (unresolved())
		return prof_boot_init(m, a);
	rc = prof_real.mutex_init(m, a);
	if (!(th = prof_self()))
		return rc;
	th->calls[PC_INIT]++;
	if (rc == 0 && (lk = prof_lock_get(m)))
		atomic_store_explicit(&lk->site, prof_site_init(CALLER),
				      memory_order_relaxed);
	return rc;
}

PROF_API int pthread_mutex_destroy(pthread_mutex_t *m)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	int rc;

	if (unresolved())
		return prof_boot_destroy(m);
	rc = prof_real.mutex_destroy(m);
	if (!(th = prof_self()))
		return rc;
	th->calls[PC_DESTROY]++;
	if (rc == 0 && (lk = prof_lock_find(m)))
		atomic_store_explicit(&lk->site, -1, memory_order_relaxed);
	return rc;
}

/* The real blocking call after a failed trylock. */
static int lock_slow(struct prof_thread *th, struct prof_lock *lk, int site,
		     pthread_mutex_t *m, uint64_t t_call, const struct how *h)
{
	uint64_t t;
	int rc;

	th->waiting_on = lk;
	prof_lock_wait_edge(lk, prof_now(), +1);
	rc = real_lock(m, h);
	t = prof_now();
	prof_lock_wait_edge(lk, t, -1);
	th->waiting_on = NULL;
	if (rc == 0 || rc == EOWNERDEAD)
		prof_acquired(th, lk, site, t_call, t, true);
	else if (rc == ETIMEDOUT)
		stat_of(th, site)->timed_out++;
	return rc;
}

static int lock_common(pthread_mutex_t *m, const struct how *h,
		       const void *caller)
{
	struct prof_thread *th = prof_self();
	struct prof_lock *lk;
	uint64_t t_call;
	int rc, site;

	if (th)
		th->calls[h->call]++;
	if (!th || !(lk = prof_lock_get(m))) {
		if (th)
			th->untracked++;
		return real_lock(m, h);
	}
	site = prof_lock_site(lk, m, caller); /* before t_call: may unwind */
	t_call = prof_timing(th) ? prof_now() : 0;
	rc = prof_real.mutex_trylock(m);
	if (prof_likely(rc == 0 || rc == EOWNERDEAD)) {
		/* Uncontended: the trylock took a few ns against ~20 for a
		 * TSC read on some VMs, so t_acq = t_call. */
		prof_acquired(th, lk, site, t_call, t_call, false);
		return rc;
	}
	if (rc == EBUSY) /* waits are always timed */
		return lock_slow(th, lk, site, m, t_call ? t_call : prof_now(),
				 h);
	/* Another error (EINVAL, EAGAIN...): let the real call decide. */
	rc = real_lock(m, h);
	if (rc == 0 || rc == EOWNERDEAD)
		prof_acquired(th, lk, site, t_call, t_call ? prof_now() : 0,
			      false);
	return rc;
}

PROF_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct how h = {PC_LOCK, CLOCK_REALTIME, NULL};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, &h, CALLER);
}

/* The timed variants are not used by the loader or by dlsym, so by the
 * time they are called the real functions are known. */
PROF_API int pthread_mutex_timedlock(pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	struct how h = {PC_TIMEDLOCK, CLOCK_REALTIME, abstime};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, &h, CALLER);
}

PROF_API int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
				     const struct timespec *abstime)
{
	struct how h = {PC_CLOCKLOCK, clock, abstime};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, &h, CALLER);
}

PROF_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	uint64_t t_call;
	int rc, site;

	if (unresolved())
		return prof_boot_trylock(m);
	th = prof_self();
	if (th)
		th->calls[PC_TRYLOCK]++;
	if (!th || !(lk = prof_lock_get(m)))
		return prof_real.mutex_trylock(m);
	site = prof_lock_site(lk, m, CALLER); /* before t_call: may unwind */
	t_call = prof_timing(th) ? prof_now() : 0;
	rc = prof_real.mutex_trylock(m);
	if (rc == 0 || rc == EOWNERDEAD)
		prof_acquired(th, lk, site, t_call, t_call, false);
	else if (rc == EBUSY)
		stat_of(th, site)->try_fail++;
	return rc;
}

PROF_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	uint64_t t_rel, area, misses;
	unsigned nwait;
	int rc, idx;

	if (unresolved())
		return prof_boot_unlock(m);
	th = prof_self();
	if (!th)
		return prof_real.mutex_unlock(m);
	th->calls[PC_UNLOCK]++;
	idx = prof_held_find_mutex(th, m);
	if (idx < 0) /* not locked through us, or by another thread */
		return prof_real.mutex_unlock(m);
	lk = th->held[idx].lk;
	if (th->held[idx].depth) {
		th->held[idx].depth--;
		return prof_real.mutex_unlock(m);
	}
	t_rel = th->held[idx].sampled ? prof_now() : 0;
	area = prof_lock_area(lk, t_rel, &nwait);
	if (!t_rel && (nwait || area != th->held[idx].area)) {
		/* outside the sample, but it made threads wait: its blame
		 * needs the integral projected to now */
		t_rel = prof_now();
		area = prof_lock_area(lk, t_rel, &nwait);
	}
	misses = prof_misses(th);
	rc = prof_real.mutex_unlock(m);
	/* Without waiters the release is a single store: t_done = t_rel
	 * saves a TSC read; with waiters it may be a futex wake-up. */
	if (rc == 0)
		prof_released(th, idx, t_rel,
			      nwait && t_rel ? prof_now() : t_rel, area, misses,
			      (uintptr_t)CALLER);
	return rc;
}

/* ---- condition variables ---------------------------------------------- */

static int cond_common(pthread_cond_t *c, pthread_mutex_t *m,
		       const struct how *h, const void *caller)
{
	struct prof_thread *th = prof_self();
	struct prof_lock *lk;
	struct prof_held saved = {0};
	uint64_t t0, t1;
	int rc, idx;

	if (!th)
		return real_wait(c, m, h);
	t0 = prof_now();
	th->calls[h->call]++;
	th->cond_waits++;
	lk = prof_lock_find(m);
	idx = lk ? prof_held_find(th, lk) : -1;
	if (idx >= 0) {
		saved = th->held[idx];
		prof_released(th, idx, t0, t0, prof_lock_area(lk, t0, NULL),
			      prof_misses(th), (uintptr_t)caller);
	}
	rc = real_wait(c, m, h);
	t1 = prof_now();
	if (idx >= 0) {
		stat_of(th, saved.site)->cond_wait += t1 - t0;
		(void)prof_timing(th);
		prof_acquired(th, lk, saved.site, t1, t1, false);
		idx = prof_held_find(th, lk);
		if (idx >= 0)
			th->held[idx].depth = saved.depth;
	}
	return rc;
}

PROF_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct how h = {PC_COND_WAIT, CLOCK_REALTIME, NULL};

	if (!prof_real.cond_wait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				    const struct timespec *abstime)
{
	struct how h = {PC_COND_TIMEDWAIT, CLOCK_REALTIME, abstime};

	if (!prof_real.cond_timedwait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				    clockid_t clock,
				    const struct timespec *abstime)
{
	struct how h = {PC_COND_CLOCKWAIT, clock, abstime};

	if (!prof_real.cond_clockwait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_signal(pthread_cond_t *c)
{
	struct prof_thread *th;

	if (!prof_real.cond_signal)
		prof_resolve();
	if ((th = prof_self())) {
		th->calls[PC_COND_SIGNAL]++;
		th->signals++;
	}
	return prof_real.cond_signal(c);
}

PROF_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	struct prof_thread *th;

	if (!prof_real.cond_broadcast)
		prof_resolve();
	if ((th = prof_self())) {
		th->calls[PC_COND_BROADCAST]++;
		th->broadcasts++;
	}
	return prof_real.cond_broadcast(c);
}

/* ---- threads ---------------------------------------------------------- */

struct trampoline {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *p)
{
	struct trampoline t = *(struct trampoline *)p;
	void *ret;

	free(p);
	(void)prof_self(); /* lifetime starts now */
	ret = t.fn(t.arg);
	prof_thread_exit();
	return ret;
}

PROF_API int pthread_create(pthread_t *t, const pthread_attr_t *a,
			    void *(*fn)(void *), void *arg)
{
	struct prof_thread *th;
	struct trampoline *tr;
	int rc;

	if (!prof_real.create)
		prof_resolve();
	if ((th = prof_self()))
		th->calls[PC_CREATE]++;
	if (!atomic_load_explicit(&prof_on, memory_order_relaxed) ||
	    !(tr = malloc(sizeof(*tr))))
		return prof_real.create(t, a, fn, arg);
	tr->fn = fn;
	tr->arg = arg;
	rc = prof_real.create(t, a, thread_start, tr);
	if (rc != 0)
		free(tr);
	return rc;
}

PROF_API int pthread_join(pthread_t t, void **ret)
{
	struct prof_thread *th;
	uint64_t t0 = prof_now();
	int rc;

	if (!prof_real.join)
		prof_resolve();
	rc = prof_real.join(t, ret);
	if ((th = prof_self())) {
		th->calls[PC_JOIN]++;
		th->t_join += prof_now() - t0;
	}
	return rc;
}

PROF_API void pthread_exit(void *ret)
{
	struct prof_thread *th;

	if (!prof_real.exit)
		prof_resolve();
	if ((th = prof_self()))
		th->calls[PC_EXIT]++;
	prof_thread_exit();
	prof_real.exit(ret);
}
