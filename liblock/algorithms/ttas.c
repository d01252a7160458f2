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
 * Lock word: the owner word of ll_owner.h, (0) -> (me) by CAS in
 * lock/trylock, (me) -> (0) by store in unlock; non-owner unlock (EPERM)
 * and destroy of a held lock (EBUSY) are detected for free.
 *
 * Waiting: ll_spin_poll() (pause, then yield in very long waits).
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "ll_owner.h"
#include "ll_wait.h"

/* Blocks until acquired.  Returns 0. */
static int ttas_lock(void *impl)
{
	struct ll_owner_lock *l = impl;
	unsigned int polls = 0;

	for (;;) {
		/* test: relaxed, the CAS that follows does the acquire */
		while (ll_owner_held(l))
			ll_spin_poll(&polls);
		/* and set */
		if (ll_owner_cas(l))
			return 0;
	}
}

/* Returns 0, or EBUSY if held (by anyone, the caller included). */
static int ttas_trylock(void *impl)
{
	if (ll_owner_held(impl))
		return EBUSY;
	return ll_owner_cas(impl) ? 0 : EBUSY;
}

const struct ll_ops ll_ttas_ops = {
	.name = "ttas",
	.summary = "test-and-test-and-set: spin on a read, CAS when free",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = ll_owner_init,
	.destroy = ll_owner_destroy,
	.lock = ttas_lock,
	.trylock = ttas_trylock,
	.unlock = ll_owner_unlock,
};
