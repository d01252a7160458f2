/* SPDX-License-Identifier: MIT */
/*
 * ahmcs: adaptive hierarchical MCS lock, two levels.
 * M. Chabbi, J. Mellor-Crummey, "Contention-conscious, locality-preserving
 * locks", PPoPP 2016 (AHMCS; "HYS-HMCS" in LiTL's code).
 *
 * HMCS (see hmcs.c) pays two queue operations even when nobody competes.
 * AHMCS lets each thread start an acquisition at the level that suits the
 * contention it has seen, with hysteresis:
 *   direct mode        enqueue the thread's own node straight at the root
 *                      (one MCS operation, like plain MCS);
 *   hierarchical mode  the HMCS path, node queue then root.
 * A thread in direct mode that had to wait at the root AHMCS_HYST times
 * in a row moves to hierarchical mode; a thread in hierarchical mode that
 * found its node queue empty and nobody behind it AHMCS_HYST times in a
 * row moves to direct mode.  Both kinds of node share the root queue, so
 * mutual exclusion is that of one MCS lock; a node cohort passes the root
 * among its members up to AHMCS_THRESHOLD times.
 *
 * Parameters: threshold 100 (LiTL), hysteresis 4 (ours; LiTL does not
 * state one).  Waiting: spin (yielding after a budget).  Trylock: a CAS on
 * the root queue only (as in LiTL).  Memory: one line for the root, two
 * per node that ran a thread, and per (lock, thread) two MCS nodes and
 * the mode, allocated lazily.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_mcs.h"

#include <errno.h>

#define AHMCS_THRESHOLD 100u
#define AHMCS_HYST 4u

struct ahmcs_local {
	struct zmcs_lock q LL_ALIGNED;
	struct zmcs_node rep LL_ALIGNED;
};

static_assert(offsetof(struct ahmcs_local, q) == 0, "zmcs_nodes_busy()");

struct ahmcs_tnode;

struct ahmcs_lock {
	struct zmcs_tree tree; /* struct ahmcs_local per node */
	/* holder-written: the holder's node, so unlock needs no lookup */
	struct ahmcs_tnode *holder LL_ALIGNED;
};

static_assert(offsetof(struct ahmcs_lock, tree) == 0, "zmcs_tree_new()");
static_assert(sizeof(struct ahmcs_lock) == 2 * LL_CACHELINE,
	      "root and key, then the holder line");

struct ahmcs_tnode {
	struct zmcs_node n LL_ALIGNED;	    /* at the node level */
	struct zmcs_node direct LL_ALIGNED; /* at the root, direct mode */
	struct ahmcs_local *held;	    /* node queue used, NULL: direct */
	uint32_t passes;
	uint32_t streak; /* acquisitions in a row that argue for a switch */
	bool hier;	 /* start the next acquisition at the node level */
	bool alone;	 /* this acquisition found its node queue empty */
};

static_assert(sizeof(struct ahmcs_tnode) == 2 * LL_CACHELINE,
	      "node-level and direct nodes on separate lines");

/* Returns 0 or ENOMEM. */
static int ahmcs_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return zmcs_tree_new(impl, sizeof(struct ahmcs_lock),
			     sizeof(struct ahmcs_local));
}

/* Count one more acquisition that argues for switching mode. */
static void ahmcs_vote(struct ahmcs_tnode *me, bool for_switch)
{
	if (!for_switch) {
		me->streak = 0;
		return;
	}
	if (++me->streak >= AHMCS_HYST) {
		me->hier = !me->hier;
		me->streak = 0;
	}
}

/* Blocks until acquired.  Returns 0, or ENOMEM (this thread's node, or
 * its NUMA node's state). */
static int ahmcs_lock(void *impl)
{
	struct ahmcs_lock *l = impl;
	struct ahmcs_tnode *me = ll_tnode(&l->tree.key, sizeof(*me));
	struct ahmcs_local *loc;
	uint32_t v;
	int node;

	if (!me)
		return ENOMEM;
	if (!me->hier) {
		v = zmcs_acquire(&l->tree.root, &me->direct, false);
		me->held = NULL;
		ahmcs_vote(me, v != ZMCS_FREE); /* waited: contention */
		l->holder = me;
		return 0;
	}
	if (!(loc = zoo_nodes_mine(&l->tree.nodes, &node)))
		return ENOMEM;
	v = zmcs_cohort_acquire(&loc->q, &me->n, &me->passes, false);
	/* Alone at our node is a vote for direct mode, cast at release if
	 * nobody queued behind us either. */
	me->alone = v == ZMCS_FREE;
	if (!zmcs_cohort_owns_parent(v))
		zmcs_acquire(&l->tree.root, &loc->rep, false);
	me->held = loc;
	l->holder = me;
	return 0;
}

/* As LiTL: try the root only, in direct mode for this acquisition. */
static int ahmcs_trylock(void *impl)
{
	struct ahmcs_lock *l = impl;
	struct ahmcs_tnode *me = ll_tnode(&l->tree.key, sizeof(*me));

	if (!me)
		return ENOMEM;
	if (!zmcs_try(&l->tree.root, &me->direct))
		return EBUSY;
	me->held = NULL;
	l->holder = me;
	return 0;
}

/* Caller holds the lock (not checked). */
static int ahmcs_unlock(void *impl)
{
	struct ahmcs_lock *l = impl;
	struct ahmcs_tnode *me = l->holder;
	struct ahmcs_local *loc = me->held;

	if (!loc) {
		zmcs_release(&l->tree.root, &me->direct, ZMCS_GO);
		return 0;
	}
	/* a successor is a vote against direct mode; nobody before or
	 * behind us, one for it */
	ahmcs_vote(me, !zmcs_has_successor(&loc->q, &me->n) && me->alone);
	if (zmcs_cohort_pass(&loc->q, &me->n, me->passes, AHMCS_THRESHOLD))
		return 0;
	zmcs_release(&l->tree.root, &loc->rep, ZMCS_GO);
	zmcs_release(&loc->q, &me->n, ZMCS_GO);
	return 0;
}

const struct ll_ops ll_ahmcs_ops = {
	.name = "ahmcs",
	.summary =
		"adaptive HMCS: direct root path when uncontended, hysteresis",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = ahmcs_init,
	.destroy = zmcs_tree_destroy,
	.lock = ahmcs_lock,
	.trylock = ahmcs_trylock,
	.unlock = ahmcs_unlock,
};
