/* SPDX-License-Identifier: MIT */
/*
 * glibc's pthread mutex, two ops tables that differ in the mutex type:
 *
 * posix: the baseline every other algorithm is compared with.  An
 * error-checking mutex, so that unlock by a non-owner is reported (EPERM)
 * rather than corrupting the lock; glibc's fast path for that type costs
 * one extra owner comparison.  The check is also done here, on the
 * holder's token (ll_self()), before glibc is asked: ThreadSanitizer
 * reports an unlock by a non-owner as an error even when glibc refuses it
 * with EPERM.
 *
 * posix_adaptive: PTHREAD_MUTEX_ADAPTIVE_NP, the second POSIX baseline of
 * LiTL's study ("pthreadadapt"): on contention it spins for a while
 * (glibc adapts the spin count per mutex, bounded by the
 * glibc.pthread.mutex_spin_count tunable, default 100) before it sleeps
 * on a futex.  Competitive succession.  The adaptive type is not
 * error-checking, so unlock by a non-owner is not detected: no
 * LIBLOCK_CAP_OWNER, no owner field written.
 *
 * Both: destroy of a held mutex returns EBUSY; one pthread_mutex_t, one
 * line.  Memory model: whatever glibc guarantees (acquire on lock,
 * release on unlock).
 */
#define _GNU_SOURCE
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <pthread.h>

struct posix_lock {
	pthread_mutex_t mutex;
	/* the holder's token, 0 when free; relaxed: a thread compares it
	 * only with its own token, which only it writes */
	_Atomic uintptr_t owner;
} LL_ALIGNED;

static_assert(sizeof(struct posix_lock) == LL_CACHELINE, "one line per lock");

/* A mutex of @type.  Returns 0, ENOMEM, or the error of
 * pthread_mutex_init(). */
static int pmutex_init(void **impl, int type)
{
	struct posix_lock *l = ll_zalloc(sizeof(*l));
	pthread_mutexattr_t ma;
	int rc;

	if (!l)
		return ENOMEM;
	if ((rc = pthread_mutexattr_init(&ma)) != 0) {
		ll_free(l);
		return rc;
	}
	rc = pthread_mutexattr_settype(&ma, type);
	if (rc == 0)
		rc = pthread_mutex_init(&l->mutex, &ma);
	pthread_mutexattr_destroy(&ma); /* also when a step above failed */
	if (rc != 0) {
		ll_free(l);
		return rc;
	}
	*impl = l;
	return 0;
}

/* posix: an error-checking mutex.  Returns as pmutex_init(). */
static int posix_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return pmutex_init(impl, PTHREAD_MUTEX_ERRORCHECK);
}

/* posix_adaptive: an adaptive mutex.  Returns as pmutex_init(). */
static int padapt_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return pmutex_init(impl, PTHREAD_MUTEX_ADAPTIVE_NP);
}

/* Both.  Returns EBUSY, keeping the lock, if it is held.  Checked with
 * trylock first: glibc's destroy would refuse too, but ThreadSanitizer
 * reports the destroy of a locked mutex as an error even when destroy
 * refuses. */
static int posix_destroy(void *impl)
{
	struct posix_lock *l = impl;
	int rc = pthread_mutex_trylock(&l->mutex);

	if (rc != 0)
		return rc;
	if ((rc = pthread_mutex_unlock(&l->mutex)) != 0 ||
	    (rc = pthread_mutex_destroy(&l->mutex)) != 0)
		return rc;
	ll_free(l);
	return 0;
}

/* Blocks until acquired.  Returns 0, or EDEADLK if the caller holds it. */
static int posix_lock(void *impl)
{
	struct posix_lock *l = impl;
	int rc = pthread_mutex_lock(&l->mutex);

	if (rc == 0)
		atomic_store_explicit(&l->owner, ll_self(),
				      memory_order_relaxed);
	return rc;
}

/* Returns 0, or EBUSY if held (by anyone, the caller included). */
static int posix_trylock(void *impl)
{
	struct posix_lock *l = impl;
	int rc = pthread_mutex_trylock(&l->mutex);

	if (rc == 0)
		atomic_store_explicit(&l->owner, ll_self(),
				      memory_order_relaxed);
	return rc;
}

/* EPERM if the caller does not hold the lock. */
static int posix_unlock(void *impl)
{
	struct posix_lock *l = impl;
	int rc;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	rc = pthread_mutex_unlock(&l->mutex);
	if (rc == EPERM) {
		/* The holder's token is ours, glibc's owner (a thread id) is
		 * not: this is the child of a fork() made while the thread
		 * held the lock (pthread_atfork()'s prepare handler takes it,
		 * the child's handler releases it), whose one thread has a
		 * new id.  As with a plain mutex, the child may release it:
		 * no other thread exists to race with, so a fresh mutex is the
		 * released one. */
		pthread_mutexattr_t ma;

		if ((rc = pthread_mutexattr_init(&ma)) != 0)
			return rc;
		rc = pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
		if (rc == 0)
			rc = pthread_mutex_init(&l->mutex, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	return rc;
}

const struct ll_ops ll_posix_ops = {
	.name = "posix",
	.summary = "glibc pthread mutex (error-checking): spin briefly, then "
		   "sleep",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_PARK | LIBLOCK_CAP_OWNER,
	.init = posix_init,
	.destroy = posix_destroy,
	.lock = posix_lock,
	.trylock = posix_trylock,
	.unlock = posix_unlock,
};

/* posix_adaptive: blocks until acquired.  Returns pthread_mutex_lock()'s
 * result (0). */
static int padapt_lock(void *impl)
{
	return pthread_mutex_lock(&((struct posix_lock *)impl)->mutex);
}

/* posix_adaptive: returns 0, or EBUSY if held. */
static int padapt_trylock(void *impl)
{
	return pthread_mutex_trylock(&((struct posix_lock *)impl)->mutex);
}

/* posix_adaptive: caller holds the lock (glibc does not check for this
 * type). */
static int padapt_unlock(void *impl)
{
	return pthread_mutex_unlock(&((struct posix_lock *)impl)->mutex);
}

const struct ll_ops ll_posix_adaptive_ops = {
	.name = "posix_adaptive",
	.summary = "glibc PTHREAD_MUTEX_ADAPTIVE_NP mutex: adaptive spin, then "
		   "sleep",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_PARK,
	.init = padapt_init,
	.destroy = posix_destroy,
	.lock = padapt_lock,
	.trylock = padapt_trylock,
	.unlock = padapt_unlock,
};
