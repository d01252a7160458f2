/* SPDX-License-Identifier: MIT */
/*
 * partitioned: partitioned ticket lock.
 * D. Dice, "Brief announcement: a partitioned ticket lock", SPAA 2011.
 *
 * A ticket lock whose grant field is split over an array of slots, one
 * cache line each: the waiter holding ticket t spins on slot t % S, so a
 * release invalidates the line of one group of waiters instead of all of
 * them.  FIFO (direct handoff in ticket order).  See zoo_tkt.h for the
 * lock words.
 *
 * Slots: LiTL uses one per NUMA node; we use max(nodes, PTL_MIN_SLOTS) so
 * that the partitioning also exists on one-node machines (with one slot
 * the lock is a plain ticket lock).
 * Trylock: exact and non-blocking (LiTL's takes a ticket after checking
 * and may wait a little): CAS on request only if its slot already grants
 * it.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_tkt.h"

#include <errno.h>

#define PTL_MIN_SLOTS 4u

struct ptl_lock {
	struct zptl p;
};

/* Returns 0 or ENOMEM. */
static int ptl_init(void **impl, const liblock_attr_t *attr)
{
	struct ptl_lock *l = ll_zalloc(sizeof(*l));
	uint32_t slots = (uint32_t)zoo_node_count();

	(void)attr;
	if (!l)
		return ENOMEM;
	if (slots < PTL_MIN_SLOTS)
		slots = PTL_MIN_SLOTS;
	if (zptl_init(&l->p, slots) != 0) {
		ll_free(l);
		return ENOMEM;
	}
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held or waited for. */
static int ptl_destroy(void *impl)
{
	struct ptl_lock *l = impl;

	if (zptl_held(&l->p))
		return EBUSY;
	zptl_fini(&l->p);
	ll_free(l);
	return 0;
}

/* Blocks until acquired (FIFO).  Returns 0. */
static int ptl_lock(void *impl)
{
	zptl_acquire(&((struct ptl_lock *)impl)->p);
	return 0;
}

/* 0 or EBUSY; never waits. */
static int ptl_trylock(void *impl)
{
	return zptl_try(&((struct ptl_lock *)impl)->p) ? 0 : EBUSY;
}

/* Caller holds the lock (not checked: tickets carry no owner). */
static int ptl_unlock(void *impl)
{
	zptl_release(&((struct ptl_lock *)impl)->p);
	return 0;
}

const struct ll_ops ll_partitioned_ops = {
	.name = "partitioned",
	.summary = "partitioned ticket lock (Dice): FIFO, waiters spread over "
		   "slots",
	.caps = LIBLOCK_CAP_LOCK,
	.init = ptl_init,
	.destroy = ptl_destroy,
	.lock = ptl_lock,
	.trylock = ptl_trylock,
	.unlock = ptl_unlock,
};
