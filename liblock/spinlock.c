/* SPDX-License-Identifier: MIT */
/*
 * spinlock: the naive test-and-set lock of the thesis (Alg. 1): every
 * attempt is an atomic exchange, so waiters keep the line in exclusive
 * state and bounce it between caches.  Kept naive on purpose: it is the
 * worst-case baseline; ttas is the polite variant.
 *
 * Lock word (owner): 0 free, else the owner's token, (0) -> (me) by CAS.
 * Recording the owner costs nothing (the CAS writes a word anyway) and lets
 * unlock detect a non-owner (EPERM) and destroy a held lock (EBUSY).
 *
 * Needs only C11 acquire/release.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

struct spin_lock {
	_Atomic uintptr_t owner;
} LL_ALIGNED;

static_assert(sizeof(struct spin_lock) == LL_CACHELINE, "one line per lock");

/* A per-thread token that is never 0. */
static __thread char self_token;
#define SELF ((uintptr_t)&self_token)

/* Returns 0 or ENOMEM. */
static int spin_init(void **impl, const liblock_attr_t *attr)
{
	struct spin_lock *l = ll_zalloc(sizeof(*l));

	if (!l)
		return ENOMEM;
	atomic_init(&l->owner, 0);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held. */
static int spin_destroy(void *impl)
{
	struct spin_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != 0)
		return EBUSY;
	ll_free(l);
	return 0;
}

static inline bool spin_try(struct spin_lock *l)
{
	uintptr_t expected = 0;

	/* (0) -> (me).  acquire: pairs with the release in spin_unlock() */
	return atomic_compare_exchange_strong_explicit(
		&l->owner, &expected, SELF, memory_order_acquire,
		memory_order_relaxed);
}

/* Blocks until acquired; returns 0.  Every attempt is still an exchange
 * (the naive lock), but a long wait yields (ll_spin_poll), as every
 * liblock spin does: a preempted holder gets its CPU back. */
static int spin_lock(void *impl)
{
	struct spin_lock *l = impl;
	unsigned int polls = 0;

	while (!spin_try(l))
		ll_spin_poll(&polls);
	return 0;
}

/* Returns 0, or EBUSY if held; never waits. */
static int spin_trylock(void *impl)
{
	return spin_try(impl) ? 0 : EBUSY;
}

/* Returns EPERM if the caller does not hold the lock. */
static int spin_unlock(void *impl)
{
	struct spin_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != SELF)
		return EPERM;
	/* (me) -> (0).  release: the section's writes before the handover */
	atomic_store_explicit(&l->owner, 0, memory_order_release);
	return 0;
}

const struct ll_ops ll_spinlock_ops = {
	.name = "spinlock",
	.summary = "test-and-set spinlock (CAS in a loop), the naive baseline",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = spin_init,
	.destroy = spin_destroy,
	.lock = spin_lock,
	.trylock = spin_trylock,
	.unlock = spin_unlock,
};
