/* SPDX-License-Identifier: MIT */
/*
 * hticket: hierarchical ticket lock, after libslock's htlock.
 * T. David, R. Guerraoui, V. Trigonakis, "Everything you always wanted to
 * know about synchronization but were afraid to ask", SOSP 2013.
 *
 * One global ticket lock and, per NUMA node, a count-down ticket
 * dispenser.  The first thread of a node to find the dispenser empty
 * becomes the node's leader: it takes the global ticket lock and then
 * refills the dispenser with HT_BATCH tickets, so that the next threads
 * of that node queue locally without touching the global lock.  The last
 * local holder (or one that sees nobody behind it) releases the global
 * lock.  C-TKT-TKT (ctkttkt) is the cohort-framework version of the same
 * idea; this one decides "pass locally" by ticket arithmetic alone.
 *
 * Node dispenser (tickets, serving); a fetch_sub on tickets returns a
 * local ticket t = old - 1:
 *   t >= 0   wait until serving == t; the node already holds the global lock
 *   t == -1  leader: global lock, then serving = tickets = HT_BATCH
 *   t < -1   a leader is at work: wait until tickets >= 0, retry
 * Release by local ticket s:
 *   s > 0, tickets == s (nobody took s - 1): tickets (s) -> (0) closes the
 *          batch, then release the global lock;
 *   s > 0, otherwise: serving = s - 1 (local handover);
 *   s == 0 (batch used up): release the global lock; the thread that got
 *          -1 is already queued on it.
 * A free lock has tickets == 0 on every node and a free global lock.
 *
 * Parameters: HT_BATCH 128 local tickets per global acquisition
 * (libslock's NB_TICKETS_LOCAL).  Waiting: spin (yielding after a budget).
 * Trylock (LiTL has none): become leader by tickets (0) -> (-1), then the
 * global ticket CAS; on failure restore tickets to 0, which only makes
 * waiting non-leaders retry.  Memory: two lines for the global lock, one
 * per node that ran a thread; no per-thread state.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_tkt.h"

#include <errno.h>

#define HT_BATCH 128

struct hticket_local {
	_Atomic int32_t tickets; /* next local ticket + 1; < 0: none left */
	_Atomic int32_t serving; /* local ticket allowed in */
} LL_ALIGNED;

struct hticket_lock {
	struct ztkt global LL_ALIGNED;
	struct zoo_nodes nodes; /* struct hticket_local per node */
	/* holder-written: where the current holder came from */
	struct hticket_local *held LL_ALIGNED;
	int32_t held_ticket;
};

static_assert(sizeof(struct hticket_lock) == 2 * LL_CACHELINE,
	      "global ticket and nodes, then the holder line");

/* Returns 0 or ENOMEM. */
static int hticket_init(void **impl, const liblock_attr_t *attr)
{
	struct hticket_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	if (zoo_nodes_init(&l->nodes, sizeof(struct hticket_local)) != 0) {
		ll_free(l);
		return ENOMEM;
	}
	*impl = l;
	return 0;
}

/* Returns EBUSY (state kept) if held or waited for. */
static int hticket_destroy(void *impl)
{
	struct hticket_lock *l = impl;

	if (ztkt_held(&l->global))
		return EBUSY;
	for (int i = 0; i < l->nodes.n; i++) {
		struct hticket_local *loc = zoo_nodes_peek(&l->nodes, i);

		if (loc && atomic_load_explicit(&loc->tickets,
						memory_order_relaxed) != 0)
			return EBUSY;
	}
	zoo_nodes_fini(&l->nodes);
	ll_free(l);
	return 0;
}

/* Leader: the global lock is ours; open a batch of local tickets. */
static void hticket_refill(struct hticket_lock *l, struct hticket_local *loc)
{
	atomic_store_explicit(&loc->serving, HT_BATCH, memory_order_relaxed);
	/* release: serving = HT_BATCH before any ticket of the new batch;
	 * pairs with the acquire fetch_sub in hticket_lock() (the stale
	 * serving of the last batch could equal a new ticket) */
	atomic_store_explicit(&loc->tickets, HT_BATCH, memory_order_release);
	l->held = loc;
	l->held_ticket = HT_BATCH;
}

/* Blocks until acquired.  Returns 0, or ENOMEM. */
static int hticket_lock(void *impl)
{
	struct hticket_lock *l = impl;
	struct hticket_local *loc;
	unsigned int polls = 0;
	int node;

	if (!(loc = zoo_nodes_mine(&l->nodes, &node)))
		return ENOMEM;
	for (;;) {
		/* acquire: pairs with the release in hticket_refill() */
		int32_t t = atomic_fetch_sub_explicit(&loc->tickets, 1,
						      memory_order_acquire) -
			    1;

		if (t >= 0) {
			/* acquire: pairs with the release in unlock */
			while (atomic_load_explicit(&loc->serving,
						    memory_order_acquire) != t)
				ll_spin_poll(&polls);
			l->held = loc;
			l->held_ticket = t;
			return 0;
		}
		if (t == -1) {
			ztkt_acquire(&l->global);
			hticket_refill(l, loc);
			return 0;
		}
		while (atomic_load_explicit(&loc->tickets,
					    memory_order_relaxed) < 0)
			ll_spin_poll(&polls);
	}
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int hticket_trylock(void *impl)
{
	struct hticket_lock *l = impl;
	struct hticket_local *loc;
	int32_t expected = 0;
	int node;

	if (!(loc = zoo_nodes_mine(&l->nodes, &node)))
		return ENOMEM;
	/* (0) -> (-1): become the node's leader.  relaxed: the global
	 * lock's acquire orders the section */
	if (!atomic_compare_exchange_strong_explicit(&loc->tickets, &expected,
						     -1, memory_order_relaxed,
						     memory_order_relaxed))
		return EBUSY;
	if (!ztkt_try(&l->global)) {
		atomic_store_explicit(&loc->tickets, 0, memory_order_relaxed);
		return EBUSY;
	}
	hticket_refill(l, loc);
	return 0;
}

/* Caller holds the lock (not checked). */
static int hticket_unlock(void *impl)
{
	struct hticket_lock *l = impl;
	struct hticket_local *loc = l->held;
	int32_t s = l->held_ticket, expected = s;

	if (s > 0) {
		/* (s) -> (0): nobody behind us, close the batch.  relaxed:
		 * the global release below orders our section */
		if (!atomic_compare_exchange_strong_explicit(
			    &loc->tickets, &expected, 0, memory_order_relaxed,
			    memory_order_relaxed)) {
			/* release: our section before ticket s - 1 enters */
			atomic_store_explicit(&loc->serving, s - 1,
					      memory_order_release);
			return 0;
		}
	}
	ztkt_release(&l->global);
	return 0;
}

const struct ll_ops ll_hticket_ops = {
	.name = "hticket",
	.summary = "hierarchical ticket lock (libslock htlock): local ticket "
		   "batches",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_NUMA,
	.init = hticket_init,
	.destroy = hticket_destroy,
	.lock = hticket_lock,
	.trylock = hticket_trylock,
	.unlock = hticket_unlock,
};
