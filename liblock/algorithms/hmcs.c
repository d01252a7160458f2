/* SPDX-License-Identifier: MIT */
/*
 * hmcs: hierarchical MCS lock, two levels (NUMA node, machine).
 * M. Chabbi, M. Fagan, J. Mellor-Crummey, "High performance locks for
 * multi-level NUMA systems", PPoPP 2015.
 *
 * A tree of MCS locks: one per NUMA node, and a root MCS lock whose
 * queue holds one node per NUMA node (the node's representative).  A
 * thread queues at its node; the first of a node (or one handed "acquire
 * the parent") queues the node's representative at the root.  On release,
 * a holder with a same-node successor passes the node lock together with
 * the root (count + 1 in the handover word) until HMCS_THRESHOLD passes;
 * then it releases the root first and hands the node lock over with
 * "acquire the parent".  LiTL's code uses the same two levels and calls
 * it "conceptually very similar to C-MCS-MCS".
 *
 * Parameters: threshold 100 (LiTL, Chabbi et al.).  Waiting: spin
 * (yielding after a budget).  Trylock: CAS on the node queue, then on
 * the root queue; if the root is busy, release the node lock with
 * "acquire the parent".  Memory: one line for the root, two per node that
 * ran a thread, one MCS node per (lock, thread), allocated lazily.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_mcs.h"

#include <errno.h>

#define HMCS_THRESHOLD 100u

struct hmcs_local {
	struct zmcs_lock q LL_ALIGNED;	 /* this node's queue */
	struct zmcs_node rep LL_ALIGNED; /* this node's place at the root */
};

static_assert(offsetof(struct hmcs_local, q) == 0, "zmcs_nodes_busy()");

struct hmcs_tnode;

struct hmcs_lock {
	struct zmcs_tree tree; /* struct hmcs_local per node */
	/* holder-written: the holder's node, so unlock needs no lookup */
	struct hmcs_tnode *holder LL_ALIGNED;
};

static_assert(offsetof(struct hmcs_lock, tree) == 0, "zmcs_tree_new()");
static_assert(sizeof(struct hmcs_lock) == 2 * LL_CACHELINE,
	      "root and key, then the holder line");

struct hmcs_tnode {
	struct zmcs_node n;
	struct hmcs_local *held; /* node queue used by this acquisition */
	uint32_t passes;	 /* consecutive node-local passes */
};

/* Returns 0 or ENOMEM. */
static int hmcs_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return zmcs_tree_new(impl, sizeof(struct hmcs_lock),
			     sizeof(struct hmcs_local));
}

/* Blocks until acquired.  Returns 0, or ENOMEM (this thread's node, or
 * its NUMA node's state). */
static int hmcs_lock(void *impl)
{
	struct hmcs_lock *l = impl;
	struct hmcs_tnode *me = ll_tnode(&l->tree.key, sizeof(*me));
	struct hmcs_local *loc;
	uint32_t v;
	int node;

	if (!me || !(loc = zoo_nodes_mine(&l->tree.nodes, &node)))
		return ENOMEM;
	v = zmcs_cohort_acquire(&loc->q, &me->n, &me->passes, false);
	/* Only the node lock's holder uses rep: no one else can be queued
	 * with it at the root now. */
	if (!zmcs_cohort_owns_parent(v))
		zmcs_acquire(&l->tree.root, &loc->rep, false);
	me->held = loc;
	l->holder = me;
	return 0;
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int hmcs_trylock(void *impl)
{
	struct hmcs_lock *l = impl;
	struct hmcs_tnode *me = ll_tnode(&l->tree.key, sizeof(*me));
	struct hmcs_local *loc;
	int node;

	if (!me || !(loc = zoo_nodes_mine(&l->tree.nodes, &node)))
		return ENOMEM;
	if (!zmcs_try(&loc->q, &me->n))
		return EBUSY;
	if (!zmcs_try(&l->tree.root, &loc->rep)) {
		zmcs_release(&loc->q, &me->n, ZMCS_GO);
		return EBUSY;
	}
	me->passes = 0;
	me->held = loc;
	l->holder = me;
	return 0;
}

/* Caller holds the lock (not checked). */
static int hmcs_unlock(void *impl)
{
	struct hmcs_lock *l = impl;
	struct hmcs_tnode *me = l->holder;
	struct hmcs_local *loc = me->held;

	if (zmcs_cohort_pass(&loc->q, &me->n, me->passes, HMCS_THRESHOLD))
		return 0;
	zmcs_release(&l->tree.root, &loc->rep, ZMCS_GO);
	zmcs_release(&loc->q, &me->n, ZMCS_GO);
	return 0;
}

const struct ll_ops ll_hmcs_ops = {
	.name = "hmcs",
	.summary = "hierarchical MCS (Chabbi et al.): MCS per NUMA node and at "
		   "the root",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = hmcs_init,
	.destroy = zmcs_tree_destroy,
	.lock = hmcs_lock,
	.trylock = hmcs_trylock,
	.unlock = hmcs_unlock,
};
