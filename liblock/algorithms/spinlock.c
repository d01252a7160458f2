/* SPDX-License-Identifier: MIT */
/*
 * spinlock: the naive test-and-set lock of the thesis (Alg. 1): every
 * attempt is an atomic exchange, so waiters keep the line in exclusive
 * state and bounce it between caches.  Kept naive on purpose: it is the
 * worst-case baseline; ttas is the polite variant.
 *
 * Lock word: the owner word of ll_owner.h, (0) -> (me) by CAS, so unlock
 * detects a non-owner (EPERM) and destroy a held lock (EBUSY).
 *
 * Needs only C11 acquire/release.
 */
#include "ll_owner.h"
#include "ll_wait.h"

/* Blocks until acquired; returns 0.  Every attempt is still an exchange
 * (the naive lock), but a long wait yields (ll_spin_poll), as every
 * liblock spin does: a preempted holder gets its CPU back. */
static int spin_lock(void *impl)
{
	unsigned int polls = 0;

	while (!ll_owner_cas(impl))
		ll_spin_poll(&polls);
	return 0;
}

/* Returns 0, or EBUSY if held; never waits. */
static int spin_trylock(void *impl)
{
	return ll_owner_cas(impl) ? 0 : EBUSY;
}

const struct ll_ops ll_spinlock_ops = {
	.name = "spinlock",
	.summary = "test-and-set spinlock (CAS in a loop), the naive baseline",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = ll_owner_init,
	.destroy = ll_owner_destroy,
	.lock = spin_lock,
	.trylock = spin_trylock,
	.unlock = ll_owner_unlock,
};
