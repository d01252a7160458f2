/* SPDX-License-Identifier: MIT */
/*
 * posix: glibc's pthread mutex, the baseline every other algorithm is
 * compared with.  An error-checking mutex, so that unlock by a non-owner
 * is reported (EPERM) rather than corrupting the lock; glibc's fast path
 * for that type costs one extra owner comparison.  The check is also done
 * here, on a token of the holder, before glibc is asked: ThreadSanitizer
 * reports an unlock by a non-owner as an error even when glibc refuses it
 * with EPERM.
 *
 * Memory model: whatever glibc guarantees (acquire on lock, release on
 * unlock).
 */
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

/* Returns 0, ENOMEM, or the error of pthread_mutex_init(). */
static int posix_init(void **impl, const liblock_attr_t *attr)
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
	rc = pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
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

/* Returns EBUSY, keeping the lock, if it is held.  Checked with trylock
 * first: glibc's destroy would refuse too, but ThreadSanitizer reports the
 * destroy of a locked mutex as an error even when destroy refuses. */
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

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	return pthread_mutex_unlock(&l->mutex);
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
