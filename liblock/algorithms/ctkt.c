/* SPDX-License-Identifier: MIT */
/*
 * ctkttkt, cptltkt: the ticket cohort locks C-TKT-TKT and C-PTL-TKT.
 * D. Dice, V. J. Marathe, N. Shavit, "Lock cohorting: a general technique
 * for designing NUMA locks", PPoPP 2012.
 *
 * One ticket lock per NUMA node and a global lock (zoo_ctkt.h): the node
 * lock is passed up to 100 times in a row (LiTL's batch) while the global
 * lock stays with the node, so the lock migrates between nodes at most
 * once per batch.  The two algorithms differ only in the global lock,
 * which the cohort skeleton of zoo_ctkt.h takes as a parameter (inlined,
 * so each ops table calls its own global lock directly):
 *   ctkttkt  a ticket lock (zoo_tkt.h); FIFO at both levels;
 *   cptltkt  a partitioned ticket lock (zoo_tkt.h; one slot per NUMA
 *            node, at least 4): the global lock's waiters are the heads
 *            of the node queues, and with one slot per node they tend to
 *            spin on different lines.
 * Waiting: spin (yielding after a budget).  Trylock: node ticket CAS then
 * the global lock's exact trylock, rolling the node lock back if the
 * global one is busy.  Memory: two per node that ran a thread, plus two
 * lines for the global ticket lock or (2 + slots) lines for the global
 * partitioned one; no per-thread state.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_ctkt.h"

/* ---- ctkttkt: a global ticket lock -------------------------------------- */

struct ctkttkt_lock {
	struct ztkt global LL_ALIGNED;
	struct zctkt cohort;
};

static_assert(sizeof(struct ctkttkt_lock) == 3 * LL_CACHELINE,
	      "global ticket, cohort nodes, cohort holder");

static void tkt_acquire(void *g)
{
	ztkt_acquire(g);
}

static bool tkt_try(void *g)
{
	return ztkt_try(g);
}

static void tkt_release(void *g)
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

	return zctkt_lock(&l->cohort, tkt_acquire, &l->global);
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int ctkttkt_trylock(void *impl)
{
	struct ctkttkt_lock *l = impl;

	return zctkt_trylock(&l->cohort, tkt_try, &l->global);
}

/* Caller holds the lock (not checked). */
static int ctkttkt_unlock(void *impl)
{
	struct ctkttkt_lock *l = impl;

	zctkt_unlock(&l->cohort, tkt_release, &l->global);
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

/* ---- cptltkt: a global partitioned ticket lock -------------------------- */

#define CPTL_MIN_SLOTS 4u

struct cptltkt_lock {
	struct zptl global;
	struct zctkt cohort;
};

static void ptl_acquire(void *g)
{
	zptl_acquire(g);
}

static bool ptl_try(void *g)
{
	return zptl_try(g);
}

static void ptl_release(void *g)
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

	return zctkt_lock(&l->cohort, ptl_acquire, &l->global);
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int cptltkt_trylock(void *impl)
{
	struct cptltkt_lock *l = impl;

	return zctkt_trylock(&l->cohort, ptl_try, &l->global);
}

/* Caller holds the lock (not checked). */
static int cptltkt_unlock(void *impl)
{
	struct cptltkt_lock *l = impl;

	zctkt_unlock(&l->cohort, ptl_release, &l->global);
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
