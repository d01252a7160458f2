/* SPDX-License-Identifier: MIT */
/*
 * cptltkt: the C-PTL-TKT cohort lock.
 * D. Dice, V. J. Marathe, N. Shavit, "Lock cohorting: a general technique
 * for designing NUMA locks", PPoPP 2012.
 *
 * A global partitioned ticket lock (zoo_tkt.h; one slot per NUMA node, at
 * least 4) and one ticket lock per node (zoo_ctkt.h), node lock passed up
 * to 100 times in a row (LiTL's batch) while the global lock stays with
 * the node.  The global lock's waiters are the heads of the node queues,
 * and with one slot per node they tend to spin on different lines.
 * Waiting: spin (yielding after a budget).  Trylock: node ticket CAS then
 * the partitioned ticket's exact trylock, rolling back on failure.
 * Memory: (2 + slots) lines for the global lock, two per node that ran a
 * thread; no per-thread state.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_ctkt.h"

#define CPTL_MIN_SLOTS 4u

struct cptltkt_lock {
	struct zptl global;
	struct zctkt cohort;
};

static void g_acquire(void *g)
{
	zptl_acquire(g);
}

static bool g_try(void *g)
{
	return zptl_try(g);
}

static void g_release(void *g)
{
	zptl_release(g);
}

/* Returns 0 or ENOMEM. */
static int cptltkt_init(void **impl, const liblock_attr_t *attr)
{
	struct cptltkt_lock *l = ll_zalloc(sizeof(*l));
	uint32_t slots = (uint32_t)zoo_node_count();

	(void)attr;
	if (!l)
		return ENOMEM;
	if (slots < CPTL_MIN_SLOTS)
		slots = CPTL_MIN_SLOTS;
	if (zptl_init(&l->global, slots) != 0) {
		ll_free(l);
		return ENOMEM;
	}
	if (zctkt_init(&l->cohort) != 0) {
		zptl_fini(&l->global);
		ll_free(l);
		return ENOMEM;
	}
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held or waited for. */
static int cptltkt_destroy(void *impl)
{
	struct cptltkt_lock *l = impl;

	if (zptl_held(&l->global) || zctkt_held(&l->cohort))
		return EBUSY;
	zoo_nodes_fini(&l->cohort.nodes);
	zptl_fini(&l->global);
	ll_free(l);
	return 0;
}

/* Blocks until acquired.  Returns 0, or ENOMEM (NUMA node's state). */
static int cptltkt_lock(void *impl)
{
	struct cptltkt_lock *l = impl;

	return zctkt_lock(&l->cohort, g_acquire, &l->global);
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int cptltkt_trylock(void *impl)
{
	struct cptltkt_lock *l = impl;

	return zctkt_trylock(&l->cohort, g_try, &l->global);
}

/* Caller holds the lock (not checked). */
static int cptltkt_unlock(void *impl)
{
	struct cptltkt_lock *l = impl;

	zctkt_unlock(&l->cohort, g_release, &l->global);
	return 0;
}

const struct ll_ops ll_cptltkt_ops = {
	.name = "cptltkt",
	.summary = "cohort lock C-PTL-TKT: global partitioned ticket, ticket "
		   "per node",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = cptltkt_init,
	.destroy = cptltkt_destroy,
	.lock = cptltkt_lock,
	.trylock = cptltkt_trylock,
	.unlock = cptltkt_unlock,
};
