/* SPDX-License-Identifier: MIT */
/*
 * ttas: test-and-test-and-set (Rudolph and Segall, ISCA'84; the "TTAS"
 * of Anderson, IEEE TPDS 1990).
 *
 * Design: waiters spin on a plain load of the lock word, which stays in
 * their cache in shared state, and try the CAS only when they saw the lock
 * free, so a held lock costs no coherence traffic.  A release still sends
 * every waiter to the CAS at once (a burst of misses), which is what
 * backoff and the queue locks improve on.  Succession is competitive: a
 * newcomer may overtake the waiters.
 *
 * Lock word (owner): 0 free, else the owner's per-thread token,
 *   (0) -> (me) by CAS in lock/trylock, (me) -> (0) by store in unlock.
 * The token makes non-owner unlock detectable (EPERM) and destroy of a
 * held lock (EBUSY) for free.
 *
 * Waiting: ll_spin_poll() (pause, then yield in very long waits).
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

struct ttas_lock {
	_Atomic uintptr_t owner;
} LL_ALIGNED;

static_assert(sizeof(struct ttas_lock) == LL_CACHELINE, "one line per lock");

/* A per-thread token that is never 0. */
static __thread char self_token;
#define SELF ((uintptr_t)&self_token)

/* Returns 0 or ENOMEM. */
static int ttas_init(void **impl, const liblock_attr_t *attr)
{
	struct ttas_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->owner, 0);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held. */
static int ttas_destroy(void *impl)
{
	struct ttas_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != 0)
		return EBUSY;
	ll_free(l);
	return 0;
}

static inline bool ttas_cas(struct ttas_lock *l)
{
	uintptr_t expected = 0;

	/* (0) -> (me).  acquire: pairs with the release in ttas_unlock() */
	return atomic_compare_exchange_strong_explicit(
		&l->owner, &expected, SELF, memory_order_acquire,
		memory_order_relaxed);
}

/* Blocks until acquired.  Returns 0. */
static int ttas_lock(void *impl)
{
	struct ttas_lock *l = impl;
	unsigned int polls = 0;

	for (;;) {
		/* test: relaxed, the CAS that follows does the acquire */
		while (atomic_load_explicit(&l->owner, memory_order_relaxed) != 0)
			ll_spin_poll(&polls);
		/* and set */
		if (ttas_cas(l))
			return 0;
	}
}

/* Returns 0, or EBUSY if held (by anyone, the caller included). */
static int ttas_trylock(void *impl)
{
	struct ttas_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != 0)
		return EBUSY;
	return ttas_cas(l) ? 0 : EBUSY;
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static int ttas_unlock(void *impl)
{
	struct ttas_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != SELF)
		return EPERM;
	/* (me) -> (0).  release: the section's writes before the handover */
	atomic_store_explicit(&l->owner, 0, memory_order_release);
	return 0;
}

const struct ll_ops ll_ttas_ops = {
	.name = "ttas",
	.summary = "test-and-test-and-set: spin on a read, CAS when free",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = ttas_init,
	.destroy = ttas_destroy,
	.lock = ttas_lock,
	.trylock = ttas_trylock,
	.unlock = ttas_unlock,
};
