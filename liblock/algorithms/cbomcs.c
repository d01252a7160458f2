/* SPDX-License-Identifier: MIT */
/*
 * cbomcs, cbomcs_stp: the C-BO-MCS cohort lock.
 * D. Dice, V. J. Marathe, N. Shavit, "Lock cohorting: a general technique
 * for designing NUMA locks", PPoPP 2012.
 *
 * A global test-and-test-and-set lock with exponential backoff, and one
 * MCS lock per NUMA node.  A thread takes its node's MCS lock; if the
 * predecessor handed it over "with the global lock" it is done, else it
 * takes the global lock too.  On release, if a thread of the same node
 * is queued and fewer than COHORT_BATCH consecutive local handovers have
 * happened, the MCS lock is passed with the global lock still held (the
 * global lock is thread-oblivious: the last cohort member releases it).
 * The pass count travels in the handover word (zoo_mcs.h), so nodes keep
 * no counter.
 *
 * Parameters: batch 100 (LiTL, Dice et al.); global backoff from 64 to
 * 65536 pauses (the global lock is only contended by one thread per node).
 * Waiting: cbomcs spins (yielding after a budget); cbomcs_stp spins then
 * parks on the local MCS node.  Trylock: local MCS CAS, then global
 * test-and-set, rolling the local lock back if the global one is busy.
 * Memory: one line for the global word, one per node that ran a thread,
 * and one MCS node per (lock, thread), allocated lazily.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_mcs.h"

#include <errno.h>

#define COHORT_BATCH 100u
#define BO_MIN 64u
#define BO_MAX 65536u

struct cbomcs_local {
	struct zmcs_lock q;
} LL_ALIGNED;

static_assert(offsetof(struct cbomcs_local, q) == 0, "zmcs_nodes_busy()");

struct cbomcs_tnode;

struct cbomcs_lock {
	_Atomic uint32_t global LL_ALIGNED; /* 0 free, 1 held by a cohort */
	struct ll_gate gate;		    /* cbomcs_stp only: see ll_wait.h */
	struct ll_lock_key key;
	struct zoo_nodes nodes; /* struct cbomcs_local per node */
	bool park;
	/* holder-written: the holder's node, so unlock needs no lookup */
	struct cbomcs_tnode *holder LL_ALIGNED;
	unsigned int duty; /* cbomcs_stp: LL_GATE_DUTY_* */
};

static_assert(sizeof(struct cbomcs_lock) == 2 * LL_CACHELINE,
	      "global word and key, then the holder line");

/* Per (lock, thread): the MCS node and what this acquisition used. */
struct cbomcs_tnode {
	struct zmcs_node n;
	struct cbomcs_local *held; /* node lock taken by lock() */
	uint32_t passes;	   /* consecutive local handovers so far */
};

static int cbomcs_init_common(void **impl, bool park)
{
	struct cbomcs_lock *l = ll_zalloc(sizeof(*l));

	if (!l)
		return ENOMEM;
	if (zoo_nodes_init(&l->nodes, sizeof(struct cbomcs_local)) != 0) {
		ll_free(l);
		return ENOMEM;
	}
	atomic_init(&l->global, 0);
	ll_gate_init(&l->gate, ll_gate_cap());
	ll_lock_key_init(&l->key);
	l->park = park;
	*impl = l;
	return 0;
}

/* Spinning variant.  Returns 0 or ENOMEM. */
static int cbomcs_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return cbomcs_init_common(impl, false);
}

/* Spin-then-park variant.  Returns 0 or ENOMEM. */
static int cbomcs_stp_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return cbomcs_init_common(impl, true);
}

/* Returns EBUSY (state kept) if held or queued for. */
static int cbomcs_destroy(void *impl)
{
	struct cbomcs_lock *l = impl;

	if (atomic_load_explicit(&l->global, memory_order_relaxed))
		return EBUSY;
	if (zmcs_nodes_busy(&l->nodes))
		return EBUSY;
	zoo_nodes_fini(&l->nodes);
	ll_tnode_forget(&l->key);
	ll_free(l);
	return 0;
}

static inline bool global_try(struct cbomcs_lock *l)
{
	/* (0) -> (1).  acquire: pairs with the release in global_release() */
	return atomic_load_explicit(&l->global, memory_order_relaxed) == 0 &&
	       atomic_exchange_explicit(&l->global, 1, memory_order_acquire) ==
		       0;
}

/* Exponential backoff between attempts (ll_backoff_step: yields between
 * attempts once the wait has lasted LL_SPIN_YIELD_BUDGET pauses, as the
 * holder may be descheduled). */
static void global_acquire(struct cbomcs_lock *l)
{
	unsigned int delay = BO_MIN, spent = 0;

	while (!global_try(l))
		ll_backoff_step(&spent, &delay, BO_MAX);
}

static inline void global_release(struct cbomcs_lock *l)
{
	/* (1) -> (0).  release: the section before the next cohort's
	 * acquire in global_try() */
	atomic_store_explicit(&l->global, 0, memory_order_release);
}

/* Blocks until acquired.  Returns 0, or ENOMEM (this thread's node, or
 * its NUMA node's state). */
static int cbomcs_lock(void *impl)
{
	struct cbomcs_lock *l = impl;
	struct cbomcs_tnode *me = ll_tnode(&l->key, sizeof(*me));
	struct cbomcs_local *loc;
	uint32_t v;
	int node;

	if (!me || !(loc = zoo_nodes_mine(&l->nodes, &node)))
		return ENOMEM;
	v = zmcs_cohort_acquire(&loc->q, &me->n, &me->passes, l->park);
	if (!zmcs_cohort_owns_parent(v))
		global_acquire(l);
	me->held = loc;
	l->holder = me;
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int cbomcs_trylock(void *impl)
{
	struct cbomcs_lock *l = impl;
	struct cbomcs_tnode *me = ll_tnode(&l->key, sizeof(*me));
	struct cbomcs_local *loc;
	int node;

	if (!me || !(loc = zoo_nodes_mine(&l->nodes, &node)))
		return ENOMEM;
	if (!zmcs_try(&loc->q, &me->n))
		return EBUSY;
	if (!global_try(l)) {
		/* Roll back; a thread that queued meanwhile must take the
		 * global lock itself. */
		zmcs_release(&loc->q, &me->n, ZMCS_GO);
		return EBUSY;
	}
	me->passes = 0;
	me->held = loc;
	l->holder = me;
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

/* Caller holds the lock (not checked). */
static int cbomcs_unlock(void *impl)
{
	struct cbomcs_lock *l = impl;
	struct cbomcs_tnode *me = l->holder;
	struct cbomcs_local *loc = me->held;
	/* before the release: afterwards the lock may be gone */
	bool wake = l->park && ll_gate_leave(&l->gate, l->duty);

	/* a cohort handover: the successor inherits the global lock */
	if (!zmcs_cohort_pass(&loc->q, &me->n, me->passes, COHORT_BATCH)) {
		global_release(l);
		zmcs_release(&loc->q, &me->n, ZMCS_GO);
	}
	if (ll_unlikely(wake))
		ll_gate_wake(&l->gate);
	return 0;
}

/* A free lock is taken at once; otherwise the thread queues only once
 * the admission gate lets it (ll_wait.h). */
static int cbomcs_stp_lock(void *impl)
{
	struct cbomcs_lock *l = impl;
	int rc = cbomcs_trylock(impl);

	if (ll_likely(rc != EBUSY))
		return rc;
	ll_gate_enter(&l->gate);
	if (ll_unlikely((rc = cbomcs_lock(impl)))) {
		ll_gate_cancel(&l->gate);
		return rc;
	}
	l->duty = ll_gate_acquired(&l->gate);
	return 0;
}

static struct ll_gate *cbomcs_gate(void *impl)
{
	return &((struct cbomcs_lock *)impl)->gate;
}

const struct ll_ops ll_cbomcs_ops = {
	.name = "cbomcs",
	.summary = "cohort lock C-BO-MCS: backoff global, MCS per NUMA node "
		   "(spin)",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = cbomcs_init,
	.destroy = cbomcs_destroy,
	.lock = cbomcs_lock,
	.trylock = cbomcs_trylock,
	.unlock = cbomcs_unlock,
};

const struct ll_ops ll_cbomcs_stp_ops = {
	.name = "cbomcs_stp",
	.summary = "cohort lock C-BO-MCS, spin then park; surplus threads park "
		   "outside",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA | LIBLOCK_CAP_PARK,
	.init = cbomcs_stp_init,
	.destroy = cbomcs_destroy,
	.lock = cbomcs_stp_lock,
	.trylock = cbomcs_trylock,
	.unlock = cbomcs_unlock,
	.gate = cbomcs_gate,
};
