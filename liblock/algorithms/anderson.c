/* SPDX-License-Identifier: MIT */
/*
 * anderson: Anderson's array-based queue lock.
 * T. E. Anderson, "The performance of spin lock alternatives for
 * shared-memory multiprocessors", IEEE TPDS 1(1), 1990.
 *
 * A fetch-and-increment on `tail` hands out tickets; ticket t waits on
 * its own flag slot[t % N] (one cache line each) and the releaser sets
 * the next slot's flag: FIFO, and each waiter spins on a private line.
 *
 * Slots: N = the number of CPUs rounded up to a power of two, at least 2,
 * at most ANDERSON_MAX_SLOTS (LiTL's 512): more spinning waiters than CPUs
 * cannot all be running.  The classic lock breaks when more than N
 * threads wait (two share a flag).  Here a ticket is admitted to its slot
 * only once it is within N of the ticket being served (`head`); the
 * others wait for admission by reading `head`, so any number of threads
 * is correct, and beyond N waiters the lock behaves like a ticket lock.
 *
 *   lock    t = tail++; wait t - head < N; wait slot[t%N] == 1
 *   unlock  slot[t%N] = 0; head = t + 1; slot[(t+1)%N] = 1
 * Free iff tail == head.  Trylock: exact and non-blocking (see below).
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_int.h"

#include <errno.h>

#define ANDERSON_MAX_SLOTS 512u

struct anderson_slot {
	_Atomic uint32_t go; /* 1: the ticket of this slot may enter */
} LL_ALIGNED;

static_assert(sizeof(struct anderson_slot) == LL_CACHELINE, "one line/slot");

struct anderson_lock {
	_Atomic uint32_t tail LL_ALIGNED; /* next ticket to hand out */
	/* holder-written: the ticket being served and its owner's copy */
	_Atomic uint32_t head LL_ALIGNED;
	uint32_t owner;
	uint32_t mask; /* N - 1 (read-only) */
	struct anderson_slot *slot;
};

static_assert(sizeof(struct anderson_lock) == 2 * LL_CACHELINE,
	      "arrivals, then the holder line");

/* Returns 0 or ENOMEM. */
static int anderson_init(void **impl, const liblock_attr_t *attr)
{
	struct anderson_lock *l = ll_zalloc(sizeof(*l));
	uint32_t n = 2, cpus = (uint32_t)ll_cpu_count();

	(void)attr;
	if (!l)
		return ENOMEM;
	while (n < cpus && n < ANDERSON_MAX_SLOTS)
		n *= 2;
	l->slot = ll_zalloc(n * sizeof(*l->slot));
	if (!l->slot) {
		ll_free(l);
		return ENOMEM;
	}
	l->mask = n - 1;
	atomic_init(&l->tail, 0);
	atomic_init(&l->head, 0);
	atomic_init(&l->slot[0].go, 1); /* ticket 0 may enter */
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held or waited for. */
static int anderson_destroy(void *impl)
{
	struct anderson_lock *l = impl;

	if (atomic_load_explicit(&l->tail, memory_order_relaxed) !=
	    atomic_load_explicit(&l->head, memory_order_relaxed))
		return EBUSY;
	ll_free(l->slot);
	ll_free(l);
	return 0;
}

/* Blocks until acquired (FIFO).  Returns 0. */
static int anderson_lock(void *impl)
{
	struct anderson_lock *l = impl;
	/* relaxed: the ticket only orders us; acquire is on head and go */
	uint32_t t =
		atomic_fetch_add_explicit(&l->tail, 1, memory_order_relaxed);
	unsigned int polls = 0;

	/* Admission.  acquire: pairs with the release of head in
	 * anderson_unlock(), so ticket t - N's reset of our slot (go = 0)
	 * is visible before we start watching the slot. */
	while (t - atomic_load_explicit(&l->head, memory_order_acquire) >
	       l->mask)
		ll_spin_poll(&polls);
	/* acquire: pairs with the release of go by ticket t - 1 */
	ll_spin_until(&l->slot[t & l->mask].go, 1, LL_SPIN_YIELD_BUDGET);
	l->owner = t;
	return 0;
}

/* 0 or EBUSY; never waits.  If head == h and slot h grants, ticket h - 1
 * has released; the slot stays granted until ticket h releases, which
 * needs ticket h to be taken, which makes the CAS on tail fail. */
static int anderson_trylock(void *impl)
{
	struct anderson_lock *l = impl;
	/* acquire: pairs with the release of head (see anderson_lock) */
	uint32_t h = atomic_load_explicit(&l->head, memory_order_acquire);

	/* acquire: pairs with the release of go by ticket h - 1 */
	if (atomic_load_explicit(&l->slot[h & l->mask].go,
				 memory_order_acquire) != 1)
		return EBUSY;
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &h, h + 1,
						     memory_order_relaxed,
						     memory_order_relaxed))
		return EBUSY;
	l->owner = h;
	return 0;
}

/* Caller holds the lock (not checked). */
static int anderson_unlock(void *impl)
{
	struct anderson_lock *l = impl;
	uint32_t t = l->owner;

	atomic_store_explicit(&l->slot[t & l->mask].go, 0,
			      memory_order_relaxed);
	/* release: the reset above before admitting ticket t + N */
	atomic_store_explicit(&l->head, t + 1, memory_order_release);
	/* release: the section before ticket t + 1's acquire */
	atomic_store_explicit(&l->slot[(t + 1) & l->mask].go, 1,
			      memory_order_release);
	return 0;
}

const struct ll_ops ll_anderson_ops = {
	.name = "anderson",
	.summary =
		"Anderson array lock: FIFO, each waiter spins on its own slot",
	.caps = LIBLOCK_CAP_LOCK,
	.init = anderson_init,
	.destroy = anderson_destroy,
	.lock = anderson_lock,
	.trylock = anderson_trylock,
	.unlock = anderson_unlock,
};
