/* SPDX-License-Identifier: MIT */
/*
 * posix_adaptive: glibc's PTHREAD_MUTEX_ADAPTIVE_NP mutex, the second
 * POSIX baseline of LiTL's study ("pthreadadapt"): on contention it spins
 * for a while (glibc adapts the spin count per mutex, bounded by the
 * glibc.pthread.mutex_spin_count tunable, default 100) before it sleeps
 * on a futex.  Competitive succession.
 *
 * Unlike the posix algorithm this is not an error-checking mutex (the
 * adaptive type is its own type), so unlock by a non-owner is not
 * detected: no LIBLOCK_CAP_OWNER.  Destroy of a held mutex returns EBUSY
 * (glibc counts users).  Memory: one pthread_mutex_t, one line.
 *
 * Memory model: whatever glibc guarantees (acquire on lock, release on
 * unlock).
 */
#define _GNU_SOURCE
#include "ll_int.h"

#include <errno.h>
#include <pthread.h>

struct padapt_lock {
	pthread_mutex_t mutex;
} LL_ALIGNED;

static_assert(sizeof(struct padapt_lock) == LL_CACHELINE, "one line per lock");

/* Returns 0, ENOMEM, or the error of pthread_mutex_init(). */
static int padapt_init(void **impl, const liblock_attr_t *attr)
{
	struct padapt_lock *l = ll_zalloc(sizeof(*l));
	pthread_mutexattr_t ma;
	int rc;

	(void)attr;
	if (!l)
		return ENOMEM;
	if ((rc = pthread_mutexattr_init(&ma)) != 0) {
		ll_free(l);
		return rc;
	}
	if ((rc = pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP)) ==
	    0)
		rc = pthread_mutex_init(&l->mutex, &ma);
	pthread_mutexattr_destroy(&ma);
	if (rc != 0) {
		ll_free(l);
		return rc;
	}
	*impl = l;
	return 0;
}

/* Returns EBUSY, keeping the lock, if it is held.  Checked with trylock
 * first: glibc's destroy would refuse too, but ThreadSanitizer reports the
 * destroy of a locked mutex as an error even when destroy refuses. */
static int padapt_destroy(void *impl)
{
	struct padapt_lock *l = impl;
	int rc = pthread_mutex_trylock(&l->mutex);

	if (rc != 0)
		return rc;
	if ((rc = pthread_mutex_unlock(&l->mutex)) != 0 ||
	    (rc = pthread_mutex_destroy(&l->mutex)) != 0)
		return rc;
	ll_free(l);
	return 0;
}

/* Blocks until acquired.  Returns pthread_mutex_lock()'s result (0). */
static int padapt_lock(void *impl)
{
	return pthread_mutex_lock(&((struct padapt_lock *)impl)->mutex);
}

/* Returns 0, or EBUSY if held. */
static int padapt_trylock(void *impl)
{
	return pthread_mutex_trylock(&((struct padapt_lock *)impl)->mutex);
}

/* Caller holds the lock (glibc does not check for this type). */
static int padapt_unlock(void *impl)
{
	return pthread_mutex_unlock(&((struct padapt_lock *)impl)->mutex);
}

const struct ll_ops ll_posix_adaptive_ops = {
	.name = "posix_adaptive",
	.summary = "glibc PTHREAD_MUTEX_ADAPTIVE_NP mutex: adaptive spin, then "
		   "sleep",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_PARK,
	.init = padapt_init,
	.destroy = padapt_destroy,
	.lock = padapt_lock,
	.trylock = padapt_trylock,
	.unlock = padapt_unlock,
};
