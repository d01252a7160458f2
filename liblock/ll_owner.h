/* SPDX-License-Identifier: MIT */
/*
 * The owner word of the test-and-set family (spinlock, ttas, backoff),
 * which differ only in how they wait between attempts.
 *
 * Lock word (owner): 0 free, else the holder's token (ll_self()).
 *   acquire  (0) -> (me) by CAS;
 *   release  (me) -> (0) by store.
 * Recording the owner costs nothing (the CAS writes a word anyway) and lets
 * unlock refuse a non-owner (EPERM) and destroy refuse a held lock (EBUSY).
 *
 * Needs only C11 acquire/release.
 */
#ifndef LL_OWNER_H
#define LL_OWNER_H

#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

struct ll_owner_lock {
	_Atomic uintptr_t owner;
} LL_ALIGNED;

static_assert(sizeof(struct ll_owner_lock) == LL_CACHELINE,
	      "one line per lock");

/* Returns 0 or ENOMEM. */
static inline int ll_owner_init(void **impl, const liblock_attr_t *attr)
{
	struct ll_owner_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->owner, 0);
	*impl = l;
	return 0;
}

/* Is the lock held?  relaxed: a test only; the CAS that follows it (or
 * destroy's caller, who must not race with users) does the ordering. */
static inline bool ll_owner_held(struct ll_owner_lock *l)
{
	return atomic_load_explicit(&l->owner, memory_order_relaxed) != 0;
}

/* Returns 0, or EBUSY (lock kept) if held. */
static inline int ll_owner_destroy(void *impl)
{
	if (ll_owner_held(impl))
		return EBUSY;
	ll_free(impl);
	return 0;
}

/* (0) -> (me).  True if taken. */
static inline bool ll_owner_cas(struct ll_owner_lock *l)
{
	uintptr_t expected = 0;

	/* acquire: pairs with the release in ll_owner_unlock() */
	return atomic_compare_exchange_strong_explicit(
		&l->owner, &expected, ll_self(), memory_order_acquire,
		memory_order_relaxed);
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static inline int ll_owner_unlock(void *impl)
{
	struct ll_owner_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	/* (me) -> (0).  release: the section's writes before the handover */
	atomic_store_explicit(&l->owner, 0, memory_order_release);
	return 0;
}

#endif /* LL_OWNER_H */
