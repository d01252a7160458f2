/* SPDX-License-Identifier: MIT */
/*
 * pthread_cond_* wrappers: each condvar is a record in the map (keyed by
 * the pthread_cond_t's address, whose memory we never write) holding a
 * futex sequence word and a waiter count.
 *
 * Wait, with the mutex held:
 *   waiters++, s = seq            (seq_cst, see cond_wake)
 *   release the mutex completely  (a recursive one too; depth restored)
 *   futex-sleep while seq == s    (until the deadline, if any)
 *   take the mutex back, waiters--
 * A signal between reading s and sleeping changes seq, so the futex call
 * returns at once: no lost wake-up.  This works with any lock, the POSIX
 * ones included (robust, PI), so conds never need an internal pthread
 * mutex.  Spurious wake-ups are possible, as POSIX allows.
 *
 * Process-shared condvars stay glibc's; waiting on one with a replaced
 * (process-private) mutex is refused with EINVAL, said once.
 *
 * Cancellation: the wait and the timed waits are cancellation points, as
 * in glibc.  The sleep runs with asynchronous cancellation enabled (what
 * glibc's own cancellation points do around their system call), inside a
 * cleanup handler that takes the mutex back and drops our waiter count,
 * so the program's cleanup handlers run with the mutex held (POSIX).
 *
 * Memory model: seq_cst on the waiter count and seq (the Dekker pattern
 * between waiter and waker); nothing else is ordered here.
 */
#include "pti_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <limits.h>

/* glibc's __wrefs bit 0: the condvar is process-shared. */
#define GLIBC_WREFS_PSHARED 1u

static _Atomic bool said_pshared, said_mixed;

struct cond_spec {
	int kind; /* PTI_NORMAL (ours) or PTI_POSIX */
	int clock;
};

static int make_cond(struct pti_obj *o, void *arg)
{
	const struct cond_spec *s = arg;

	o->kind = s->kind;
	o->clock = s->clock;
	if (o->kind != PTI_POSIX)
		pti_count_object(true);
	return 0;
}

static bool pshared_memory(const pthread_cond_t *c)
{
	return __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) &
	       GLIBC_WREFS_PSHARED;
}

/* The record of @c, NULL if @c is glibc's.  Without @create a missing
 * record means "no waiter ever", and is reported through *@none. */
static struct pti_obj *cond_get(pthread_cond_t *c, bool create, bool *none)
{
	struct pti_obj *o = pti_map_find(PTI_CONDS, (uintptr_t)c);
	struct cond_spec spec = {PTI_NORMAL, CLOCK_REALTIME};
	int err;

	*none = false;
	if (ll_likely(o != NULL))
		return o->kind == PTI_POSIX ? NULL : o;
	if (!pti_config()->replace || pshared_memory(c))
		return NULL;
	if (!create) {
		*none = true;
		return NULL;
	}
	o = pti_map_add(PTI_CONDS, (uintptr_t)c, make_cond, &spec, false, NULL,
			&err);
	if (!o)
		ll_fatal("rcl-run: out of memory for condvar %p", (void *)c);
	return o->kind == PTI_POSIX ? NULL : o;
}

void pti_cond_after_fork(struct pti_obj *o)
{
	/* The child's only thread is not waiting: the others are gone. */
	atomic_store_explicit(&o->waiters, 0, memory_order_relaxed);
}

/* A wait in progress, for its cancellation handler. */
struct wait {
	struct pti_obj *co, *mo;
	pthread_mutex_t *m;
	enum pti_hold hold; /* how the mutex is held and taken back */
	unsigned int depth;
};

/* Take the mutex back (restoring its depth) and stop counting as a
 * waiter.  Returns 0, or glibc's error for its own robust mutexes. */
static int wait_end(struct wait *w)
{
	int rc = 0;

	if (w->hold == PTI_HOLD_RECORD)
		pti_mutex_reacquire(w->mo, w->depth);
	else if (w->hold == PTI_HOLD_THIN)
		rc = pti_mutex_take(w->m); /* the word, or its new record */
	else
		rc = pti_real()->mutex_lock(w->m);
	atomic_fetch_sub_explicit(&w->co->waiters, 1, memory_order_release);
	return rc;
}

static void wait_cancelled(void *arg)
{
	wait_end(arg);
}

/* Sleep while @co's seq is @s, as a cancellation point. */
static int sleep_cancellable(struct wait *w, uint32_t s, clockid_t clock,
			     const struct timespec *abstime)
{
	int rc, old;

	pthread_cleanup_push(wait_cancelled, w);
	/* A cancel already pending acts here, with the mutex released. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	rc = ll_futex_wait(&w->co->seq, s, abstime, clock);
	pthread_setcanceltype(old, NULL);
	pthread_cleanup_pop(0);
	return rc;
}

/* Wait on our record @co; @m is held as @hold says (@mo: its record). */
static int wait_ours(struct pti_obj *co, pthread_mutex_t *m, enum pti_hold hold,
		     struct pti_obj *mo, clockid_t clock,
		     const struct timespec *abstime)
{
	struct wait w = {co, mo, m, hold, 0};
	unsigned int s;
	int rc, rc2;

	/* seq_cst: our count is visible to a waker before we read seq;
	 * pairs with the seq_cst pair in cond_wake() */
	atomic_fetch_add_explicit(&co->waiters, 1, memory_order_seq_cst);
	s = atomic_load_explicit(&co->seq, memory_order_seq_cst);
	rc = hold == PTI_HOLD_RECORD ? pti_mutex_release(mo, &w.depth)
				     : pti_real()->mutex_unlock(m);
	if (rc != 0) {
		atomic_fetch_sub_explicit(&co->waiters, 1,
					  memory_order_relaxed);
		return rc;
	}
	rc = sleep_cancellable(&w, s, clock, abstime);
	if ((rc2 = wait_end(&w)) != 0)
		rc = rc2; /* EOWNERDEAD from a robust mutex */
	return rc;
}

/* @clock < 0: the condvar's own clock. */
static int wait_common(pthread_cond_t *c, pthread_mutex_t *m, int clock,
		       const struct timespec *abstime)
{
	struct pti_obj *co, *mo;
	enum pti_hold hold;
	bool none;

	if (abstime &&
	    (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L))
		return EINVAL;
	co = cond_get(c, true, &none);
	hold = pti_mutex_hold(m, &mo);
	if (!co) {
		const struct pti_real *r = pti_real();

		if (hold == PTI_HOLD_GLIBC) {
			if (!abstime)
				return r->cond_wait(c, m);
			if (clock < 0)
				return r->cond_timedwait(c, m, abstime);
			return r->cond_clockwait(c, m, clock, abstime);
		}
		pti_say_once(&said_mixed, "refused with EINVAL",
			     "a process-shared condvar waited on with a "
			     "process-private mutex");
		return EINVAL;
	}
	return wait_ours(co, m, hold, mo, clock < 0 ? co->clock : clock,
			 abstime);
}

LL_API_EXPORT int pti_cond_init(pthread_cond_t *c,
				const pthread_condattr_t *attr)
{
	struct cond_spec spec = {PTI_NORMAL, CLOCK_REALTIME};
	clockid_t clock = CLOCK_REALTIME;
	int pshared = PTHREAD_PROCESS_PRIVATE, rc, err;

	if (pti_thread.inside)
		return pti_real()->cond_init(c, attr);
	pti_count(PTI_W_COND_INIT);
	if (!pti_config()->replace)
		return pti_real()->cond_init(c, attr);
	if (attr && (pthread_condattr_getclock(attr, &clock) != 0 ||
		     pthread_condattr_getpshared(attr, &pshared) != 0))
		return EINVAL;
	spec.clock = (int)clock;
	if (pshared != PTHREAD_PROCESS_PRIVATE) {
		pti_say_once(&said_pshared, "left to glibc",
			     "process-shared condvars");
		if ((rc = pti_real()->cond_init(c, attr)) != 0)
			return rc;
		spec.kind = PTI_POSIX;
	}
	if (!pti_map_add(PTI_CONDS, (uintptr_t)c, make_cond, &spec, true, NULL,
			 &err))
		return err;
	return 0;
}
PTI_EXPORT(pti_cond_init, pthread_cond_init, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_init, pti_cond_init_225, pthread_cond_init,
	       "GLIBC_2.2.5");

static int check_cond_destroy(struct pti_obj *o)
{
	if (o->kind == PTI_POSIX)
		return pti_real()->cond_destroy(
			(pthread_cond_t *)atomic_load(&o->key));
	return atomic_load_explicit(&o->waiters, memory_order_acquire) ? EBUSY
								       : 0;
}

LL_API_EXPORT int pti_cond_destroy(pthread_cond_t *c)
{
	int rc;

	if (pti_thread.inside)
		return pti_real()->cond_destroy(c);
	pti_count(PTI_W_COND_DESTROY);
	rc = pti_map_remove(PTI_CONDS, (uintptr_t)c, check_cond_destroy, NULL);
	if (rc != ENOENT)
		return rc;
	if (!pti_config()->replace || pshared_memory(c))
		return pti_real()->cond_destroy(c);
	return 0;
}
PTI_EXPORT(pti_cond_destroy, pthread_cond_destroy, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_destroy, pti_cond_destroy_225, pthread_cond_destroy,
	       "GLIBC_2.2.5");

LL_API_EXPORT int pti_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (pti_thread.inside)
		return pti_real()->cond_wait(c, m);
	pti_count(PTI_W_COND_WAIT);
	return wait_common(c, m, -1, NULL);
}
PTI_EXPORT(pti_cond_wait, pthread_cond_wait, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_wait, pti_cond_wait_225, pthread_cond_wait,
	       "GLIBC_2.2.5");

LL_API_EXPORT int pti_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	if (pti_thread.inside)
		return pti_real()->cond_timedwait(c, m, abstime);
	pti_count(PTI_W_COND_TIMEDWAIT);
	if (!abstime)
		return EINVAL;
	return wait_common(c, m, -1, abstime);
}
PTI_EXPORT(pti_cond_timedwait, pthread_cond_timedwait, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_timedwait, pti_cond_timedwait_225,
	       pthread_cond_timedwait, "GLIBC_2.2.5");

LL_API_EXPORT int pti_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				     clockid_t clock,
				     const struct timespec *abstime)
{
	if (pti_thread.inside)
		return pti_real()->cond_clockwait(c, m, clock, abstime);
	pti_count(PTI_W_COND_CLOCKWAIT);
	if (!abstime || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
		return EINVAL;
	return wait_common(c, m, (int)clock, abstime);
}
PTI_EXPORT(pti_cond_clockwait, pthread_cond_clockwait, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_cond_clockwait, pti_cond_clockwait_230,
	       pthread_cond_clockwait, "GLIBC_2.30");

/* Wake up to @n waiters of @c. */
static int cond_wake(pthread_cond_t *c, int n)
{
	struct pti_obj *co;
	bool none;

	co = cond_get(c, false, &none);
	if (!co) {
		if (none)
			return 0; /* never waited on: nobody to wake */
		return n == 1 ? pti_real()->cond_signal(c)
			      : pti_real()->cond_broadcast(c);
	}
	/* seq_cst: a waiter we do not count has not read seq yet and will
	 * read the new value, so it does not sleep (see wait_ours) */
	if (atomic_load_explicit(&co->waiters, memory_order_seq_cst) == 0)
		return 0;
	atomic_fetch_add_explicit(&co->seq, 1, memory_order_seq_cst);
	ll_futex_wake(&co->seq, n);
	return 0;
}

LL_API_EXPORT int pti_cond_signal(pthread_cond_t *c)
{
	if (pti_thread.inside)
		return pti_real()->cond_signal(c);
	pti_count(PTI_W_COND_SIGNAL);
	return cond_wake(c, 1);
}
PTI_EXPORT(pti_cond_signal, pthread_cond_signal, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_signal, pti_cond_signal_225, pthread_cond_signal,
	       "GLIBC_2.2.5");

LL_API_EXPORT int pti_cond_broadcast(pthread_cond_t *c)
{
	if (pti_thread.inside)
		return pti_real()->cond_broadcast(c);
	pti_count(PTI_W_COND_BROADCAST);
	return cond_wake(c, INT_MAX);
}
PTI_EXPORT(pti_cond_broadcast, pthread_cond_broadcast, "GLIBC_2.3.2");
PTI_EXPORT_OLD(pti_cond_broadcast, pti_cond_broadcast_225,
	       pthread_cond_broadcast, "GLIBC_2.2.5");
