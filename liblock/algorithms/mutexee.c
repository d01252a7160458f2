/* SPDX-License-Identifier: MIT */
/*
 * mutexee: a futex mutex tuned for throughput and energy.
 * B. Falsafi, R. Guerraoui, J. Picorel, V. Trigonakis, "Unlocking energy",
 * USENIX ATC 2016.  (In LiTL's code after the study, "original" policy.)
 *
 * Like glibc's mutex a test-and-set word with futex sleeping, but with
 * the two changes the paper argues for:
 *   - lock spins much longer before it sleeps (MUTEXEE_LOCK_SPINS polls),
 *     since a futex sleep/wake round trip costs more time and energy than
 *     most critical sections;
 *   - unlock, when sleepers exist, first waits MUTEXEE_UNLOCK_SPINS polls
 *     for a spinning thread to take the lock, and issues the futex wake
 *     only if nobody did.  The new owner inherits the duty: its own
 *     unlock sees the sleepers and does the same, so no wake-up is lost.
 *
 * Words: locked (0 free, 1 held), sleepers (threads in the sleep loop).
 *   lock     (0) -> (1) by CAS while spinning; then sleepers++,
 *            loop { CAS (0) -> (1) or futex_wait(locked, 1) }, sleepers--
 *   unlock   (1) -> (0), then if sleepers: wait a little for (0) -> (1)
 *            by someone else, else futex_wake(locked, 1)
 * The unlocker's store of 0 and its read of sleepers, and the sleeper's
 * increment and its CAS, are seq_cst: either the unlocker sees the
 * sleeper, or the sleeper's CAS sees 0 (Dekker).
 *
 * Parameters (ours; the paper gives cycle counts for its machines):
 * lock spins 512 polls (about 10 us), unlock waits 32 polls.  Competitive
 * succession.  Trylock: one CAS.  Memory: one line per lock.
 */
#include "zoo_int.h"

#include <errno.h>

#define MUTEXEE_LOCK_SPINS 512u
#define MUTEXEE_UNLOCK_SPINS 32u

struct mutexee_lock {
	_Atomic uint32_t locked;
	_Atomic uint32_t sleepers;
} LL_ALIGNED;

static_assert(sizeof(struct mutexee_lock) == LL_CACHELINE, "one line/lock");

/* Returns 0 or ENOMEM. */
static int mutexee_init(void **impl, const liblock_attr_t *attr)
{
	struct mutexee_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held. */
static int mutexee_destroy(void *impl)
{
	struct mutexee_lock *l = impl;

	if (atomic_load_explicit(&l->locked, memory_order_relaxed) ||
	    atomic_load_explicit(&l->sleepers, memory_order_relaxed))
		return EBUSY;
	ll_free(l);
	return 0;
}

static inline bool mutexee_try(struct mutexee_lock *l, memory_order mo)
{
	uint32_t expected = 0;

	/* (0) -> (1).  acquire (or stronger): pairs with the release in
	 * mutexee_unlock() */
	return atomic_load_explicit(&l->locked, memory_order_relaxed) == 0 &&
	       atomic_compare_exchange_strong_explicit(
		       &l->locked, &expected, 1, mo, memory_order_relaxed);
}

/* Blocks until acquired (spins, then sleeps).  Returns 0. */
static int mutexee_lock(void *impl)
{
	struct mutexee_lock *l = impl;

	for (unsigned int i = 0; i < MUTEXEE_LOCK_SPINS; i++) {
		if (mutexee_try(l, memory_order_acquire))
			return 0;
		ll_cpu_relax();
	}
	/* seq_cst: our registration before our CAS, against the unlocker's
	 * store of 0 before its read of sleepers (see the header) */
	atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
	while (!mutexee_try(l, memory_order_seq_cst))
		ll_futex_wait(&l->locked, 1, NULL, CLOCK_MONOTONIC);
	atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
	return 0;
}

/* Returns 0, or EBUSY if held; never waits. */
static int mutexee_trylock(void *impl)
{
	return mutexee_try(impl, memory_order_acquire) ? 0 : EBUSY;
}

/* Caller holds the lock (not checked). */
static int mutexee_unlock(void *impl)
{
	struct mutexee_lock *l = impl;

	/* seq_cst (includes release: the section before the next owner's
	 * acquire): see the header */
	atomic_store_explicit(&l->locked, 0, memory_order_seq_cst);
	if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst) == 0)
		return 0;
	for (unsigned int i = 0; i < MUTEXEE_UNLOCK_SPINS; i++) {
		if (atomic_load_explicit(&l->locked, memory_order_relaxed))
			return 0; /* a spinner took it; it will wake later */
		ll_cpu_relax();
	}
	ll_futex_wake(&l->locked, 1);
	return 0;
}

const struct ll_ops ll_mutexee_ops = {
	.name = "mutexee",
	.summary =
		"Mutexee (Falsafi et al.): futex mutex, long spin, lazy wake",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_PARK,
	.init = mutexee_init,
	.destroy = mutexee_destroy,
	.lock = mutexee_lock,
	.trylock = mutexee_trylock,
	.unlock = mutexee_unlock,
};
