/* SPDX-License-Identifier: MIT */
/*
 * The node level of the ticket cohort locks (ctkttkt, cptltkt), after
 * Dice, Marathe and Shavit, "Lock cohorting", PPoPP 2012: one ticket lock
 * per NUMA node, whose holder either inherited the global lock from a
 * same-node predecessor (top_granted) or takes it itself.  The global
 * lock is passed in as a function (ticket or partitioned ticket; both are
 * thread-oblivious, see zoo_tkt.h), and these helpers are inlined with it.
 *
 * Cohort detection: a node ticket lock has waiters iff next - grant > 1.
 * On release with waiters and fewer than ZCTKT_BATCH consecutive passes,
 * the holder sets top_granted and releases only the node lock; otherwise
 * it clears top_granted and releases the global lock, then the node lock.
 * A node lock that is free therefore never has top_granted set.
 *
 * Needs only C11 acquire/release.
 */
#ifndef ZOO_CTKT_H
#define ZOO_CTKT_H

#include "zoo_tkt.h"

#include <errno.h>

#define ZCTKT_BATCH 100u

struct zctkt_local {
	struct ztkt t;
	/* written by the holder of t only */
	uint32_t top_granted LL_ALIGNED; /* the global lock comes with t */
	uint32_t passes;		 /* consecutive node-local passes */
} LL_ALIGNED;

struct zctkt {
	struct zoo_nodes nodes; /* struct zctkt_local per node */
	/* holder-written: the node lock the current holder took */
	struct zctkt_local *held LL_ALIGNED;
};

static_assert(sizeof(struct zctkt) == 2 * LL_CACHELINE,
	      "node table, then the holder line");

static inline int zctkt_init(struct zctkt *c)
{
	return zoo_nodes_init(&c->nodes, sizeof(struct zctkt_local));
}

static inline bool zctkt_held(struct zctkt *c)
{
	for (int i = 0; i < c->nodes.n; i++) {
		struct zctkt_local *loc = zoo_nodes_peek(&c->nodes, i);

		if (loc && ztkt_held(&loc->t))
			return true;
	}
	return false;
}

static inline int zctkt_lock(struct zctkt *c, void (*global_acquire)(void *),
			     void *g)
{
	int node;
	struct zctkt_local *loc = zoo_nodes_mine(&c->nodes, &node);

	if (!loc)
		return ENOMEM;
	ztkt_acquire(&loc->t);
	if (!loc->top_granted) {
		global_acquire(g);
		loc->passes = 0;
	}
	c->held = loc;
	return 0;
}

static inline int zctkt_trylock(struct zctkt *c, bool (*global_try)(void *),
				void *g)
{
	int node;
	struct zctkt_local *loc = zoo_nodes_mine(&c->nodes, &node);

	if (!loc)
		return ENOMEM;
	if (!ztkt_try(&loc->t))
		return EBUSY;
	/* The node lock was free, so top_granted is clear (see above). */
	if (!global_try(g)) {
		ztkt_release(&loc->t);
		return EBUSY;
	}
	loc->passes = 0;
	c->held = loc;
	return 0;
}

static inline void zctkt_unlock(struct zctkt *c, void (*global_release)(void *),
				void *g)
{
	struct zctkt_local *loc = c->held;

	if (loc->passes < ZCTKT_BATCH && ztkt_waiters(&loc->t)) {
		loc->passes++;
		loc->top_granted = 1;
		ztkt_release(&loc->t); /* the global lock stays held */
		return;
	}
	loc->top_granted = 0;
	global_release(g);
	ztkt_release(&loc->t);
}

#endif /* ZOO_CTKT_H */
