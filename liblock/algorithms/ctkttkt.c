/* SPDX-License-Identifier: MIT */
/*
 * ctkttkt: the C-TKT-TKT cohort lock.
 * D. Dice, V. J. Marathe, N. Shavit, "Lock cohorting: a general technique
 * for designing NUMA locks", PPoPP 2012.
 *
 * A global ticket lock and one ticket lock per NUMA node (zoo_ctkt.h):
 * the node lock is passed up to 100 times in a row (LiTL's batch) while
 * the global lock stays with the node, so the lock migrates between nodes
 * at most once per batch.  FIFO at both levels.  Waiting: spin (yielding
 * after a budget).  Trylock: node ticket CAS then global ticket CAS,
 * rolling the node lock back if the global one is busy; exact.
 * Memory: two lines for the global lock, two per node that ran a thread;
 * no per-thread state.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_ctkt.h"

struct ctkttkt_lock {
	struct ztkt global LL_ALIGNED;
	struct zctkt cohort;
};

static_assert(sizeof(struct ctkttkt_lock) == 3 * LL_CACHELINE,
	      "global ticket, cohort nodes, cohort holder");

static void g_acquire(void *g)
{
	ztkt_acquire(g);
}

static bool g_try(void *g)
{
	return ztkt_try(g);
}

static void g_release(void *g)
{
	ztkt_release(g);
}

/* Returns 0 or ENOMEM. */
static int ctkttkt_init(void **impl, const liblock_attr_t *attr)
{
	struct ctkttkt_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	if (zctkt_init(&l->cohort) != 0) {
		ll_free(l);
		return ENOMEM;
	}
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held or waited for. */
static int ctkttkt_destroy(void *impl)
{
	struct ctkttkt_lock *l = impl;

	if (ztkt_held(&l->global) || zctkt_held(&l->cohort))
		return EBUSY;
	zoo_nodes_fini(&l->cohort.nodes);
	ll_free(l);
	return 0;
}

/* Blocks until acquired.  Returns 0, or ENOMEM (NUMA node's state). */
static int ctkttkt_lock(void *impl)
{
	struct ctkttkt_lock *l = impl;

	return zctkt_lock(&l->cohort, g_acquire, &l->global);
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int ctkttkt_trylock(void *impl)
{
	struct ctkttkt_lock *l = impl;

	return zctkt_trylock(&l->cohort, g_try, &l->global);
}

/* Caller holds the lock (not checked). */
static int ctkttkt_unlock(void *impl)
{
	struct ctkttkt_lock *l = impl;

	zctkt_unlock(&l->cohort, g_release, &l->global);
	return 0;
}

const struct ll_ops ll_ctkttkt_ops = {
	.name = "ctkttkt",
	.summary = "cohort lock C-TKT-TKT: global ticket, ticket per NUMA node",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = ctkttkt_init,
	.destroy = ctkttkt_destroy,
	.lock = ctkttkt_lock,
	.trylock = ctkttkt_trylock,
	.unlock = ctkttkt_unlock,
};
