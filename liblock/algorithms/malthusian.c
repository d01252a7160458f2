/* SPDX-License-Identifier: MIT */
/*
 * malthusian, malthusian_stp: Malthusian MCS lock (MCSCR).
 * D. Dice, "Malthusian locks", EuroSys 2017 (arXiv 1511.06035, 2015).
 *
 * An MCS lock that restricts concurrency: waiters beyond the one that is
 * next in line are surplus, and the releaser moves them, one per release,
 * to a passive set, where they wait without taking part in the handover
 * cycle.  The active set shrinks to the owner and one or two waiters, so
 * the lock and the data it protects stay in few caches, and (in the STP
 * variant) culled threads sleep and leave their CPUs to others.
 *
 * Release by the owner O (only the owner touches the passive set):
 *   - no successor, passive set empty: (tail) (O) -> (NULL), as MCS;
 *   - no successor, passive set not empty: re-activate the most recently
 *     culled waiter P: (tail) (O) -> (P) and hand P the lock;
 *   - successor S with a successor S2: cull S (push it on the passive
 *     set, which reuses S->next as its link) and hand the lock to S2;
 *   - about once per MALTH_FAIRNESS releases (random, owner-private
 *     xorshift), graft the whole passive set in front of the successor
 *     and hand it the lock: long-term fairness, no one starves.
 * Invariant: the passive set is not empty only while the lock is held
 * (tail != NULL), so trylock's CAS on a NULL tail stays exact.
 *
 * Parameters: fairness 1/1024 releases (LiTL's UNLOCK_COUNT_THRESHOLD).
 * Waiting: malthusian spins (yielding after a budget); malthusian_stp
 * spins LL_SPIN_BUDGET polls, then parks; culled threads park.  Trylock:
 * CAS (NULL) -> (me) on the tail.  Memory: two lines per lock, one MCS
 * node per (lock, thread), allocated lazily.
 *
 * Needs only C11 acquire/release.
 */
#include "zoo_mcs.h"

#include <errno.h>

#define MALTH_FAIRNESS 1024u

struct malth_lock {
	struct zmcs_lock q LL_ALIGNED;
	struct ll_gate gate; /* malthusian_stp only: see ll_wait.h */
	struct ll_lock_key key;
	bool park;
	/* owner-private: the passive set, a stack linked through ->next */
	struct zmcs_node *passive LL_ALIGNED;
	struct zmcs_node *passive_tail;
	struct zmcs_node
		*holder; /* the holder's node: unlock needs no lookup */
	uint32_t rng;
	unsigned int duty; /* malthusian_stp: LL_GATE_DUTY_* */
};

static_assert(sizeof(struct malth_lock) == 2 * LL_CACHELINE,
	      "queue and key, then the holder line");

static int malth_init_common(void **impl, bool park)
{
	struct malth_lock *l = ll_zalloc(sizeof(*l));

	if (!l)
		return ENOMEM;
	ll_lock_key_init(&l->key);
	ll_gate_init(&l->gate, ll_gate_cap());
	l->park = park;
	l->rng = 0x9e3779b9u ^ (uint32_t)l->key.id;
	*impl = l;
	return 0;
}

/* Spinning variant.  Returns 0 or ENOMEM. */
static int malth_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return malth_init_common(impl, false);
}

/* Spin-then-park variant.  Returns 0 or ENOMEM. */
static int malth_stp_init(void **impl, const liblock_attr_t *attr)
{
	(void)attr;
	return malth_init_common(impl, true);
}

/* Returns EBUSY (state kept) if held or queued for. */
static int malth_destroy(void *impl)
{
	struct malth_lock *l = impl;

	if (atomic_load_explicit(&l->q.tail, memory_order_relaxed))
		return EBUSY;
	ll_tnode_forget(&l->key);
	ll_free(l);
	return 0;
}

/* Blocks until acquired.  Returns 0, or ENOMEM (this thread's node). */
static int malth_lock(void *impl)
{
	struct malth_lock *l = impl;
	struct zmcs_node *me = ll_tnode(&l->key, sizeof(*me));

	if (!me)
		return ENOMEM;
	zmcs_acquire(&l->q, me, l->park);
	l->holder = me;
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

/* Returns 0, EBUSY if held, or ENOMEM. */
static int malth_trylock(void *impl)
{
	struct malth_lock *l = impl;
	struct zmcs_node *me = ll_tnode(&l->key, sizeof(*me));

	if (!me)
		return ENOMEM;
	if (!zmcs_try(&l->q, me))
		return EBUSY;
	l->holder = me;
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

static void passive_push(struct malth_lock *l, struct zmcs_node *n)
{
	atomic_store_explicit(&n->next, l->passive, memory_order_relaxed);
	if (!l->passive)
		l->passive_tail = n;
	l->passive = n;
}

static struct zmcs_node *passive_pop(struct malth_lock *l)
{
	struct zmcs_node *n = l->passive;

	l->passive = atomic_load_explicit(&n->next, memory_order_relaxed);
	if (!l->passive)
		l->passive_tail = NULL;
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	return n;
}

static bool fairness_due(struct malth_lock *l)
{
	uint32_t x = l->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	l->rng = x;
	return x % MALTH_FAIRNESS == 0;
}

/* No successor linked behind @me: leave the lock free, or re-activate a
 * passive waiter.  Returns false if a successor appeared meanwhile. */
static bool malth_release_alone(struct malth_lock *l, struct zmcs_node *me)
{
	struct zmcs_node *expected = me, *p;

	if (!l->passive)
		/* release: our section before the next acquirer's exchange */
		return atomic_compare_exchange_strong_explicit(
			&l->q.tail, &expected, NULL, memory_order_release,
			memory_order_relaxed);
	p = passive_pop(l);
	/* (me) -> (p).  release: p->next = NULL before an enqueuer that
	 * reads p from the tail links itself behind it */
	if (atomic_compare_exchange_strong_explicit(&l->q.tail, &expected, p,
						    memory_order_release,
						    memory_order_relaxed)) {
		zmcs_handover(p, ZMCS_GO);
		return true;
	}
	passive_push(l, p);
	return false;
}

/* Caller holds the lock (not checked). */
static void malth_release(struct malth_lock *l)
{
	struct zmcs_node *me = l->holder;
	struct zmcs_node *succ, *s2;

	/* acquire: pairs with the successor's release link (zmcs) */
	if (atomic_load_explicit(&me->next, memory_order_acquire) == NULL &&
	    malth_release_alone(l, me))
		return;
	succ = zmcs_successor(me);
	if (l->passive && fairness_due(l)) {
		/* Graft the passive set in front of the successor. */
		atomic_store_explicit(&l->passive_tail->next, succ,
				      memory_order_relaxed);
		succ = l->passive;
		l->passive = l->passive_tail = NULL;
		zmcs_handover(succ, ZMCS_GO);
		return;
	}
	/* acquire: pairs with S2's link store, S2's node is published */
	s2 = atomic_load_explicit(&succ->next, memory_order_acquire);
	if (s2) {
		passive_push(l, succ); /* surplus: cull it */
		succ = s2;
	}
	zmcs_handover(succ, ZMCS_GO);
}

static int malth_unlock(void *impl)
{
	malth_release(impl);
	return 0;
}

/* malthusian_stp: a free lock is taken at once; otherwise the thread
 * queues only once the admission gate lets it (ll_wait.h).  The gate is
 * the culling done before the queue: surplus threads sleep outside it,
 * so the releaser's own culling (above) only sees spinning waiters. */
static int malth_stp_lock(void *impl)
{
	struct malth_lock *l = impl;
	int rc = malth_trylock(impl);

	if (ll_likely(rc != EBUSY))
		return rc;
	ll_gate_enter(&l->gate);
	if (ll_unlikely((rc = malth_lock(impl)))) {
		ll_gate_cancel(&l->gate);
		return rc;
	}
	l->duty = ll_gate_acquired(&l->gate);
	return 0;
}

static int malth_stp_unlock(void *impl)
{
	struct malth_lock *l = impl;
	/* before the release: afterwards the lock may be gone */
	bool wake = ll_gate_leave(&l->gate, l->duty);

	malth_release(l);
	if (ll_unlikely(wake))
		ll_gate_wake(&l->gate);
	return 0;
}

static struct ll_gate *malth_gate(void *impl)
{
	return &((struct malth_lock *)impl)->gate;
}

const struct ll_ops ll_malthusian_ops = {
	.name = "malthusian",
	.summary = "Malthusian MCS (MCSCR): culls surplus waiters to a passive "
		   "set (spin)",
	.caps = LIBLOCK_CAP_LOCK,
	.init = malth_init,
	.destroy = malth_destroy,
	.lock = malth_lock,
	.trylock = malth_trylock,
	.unlock = malth_unlock,
};

const struct ll_ops ll_malthusian_stp_ops = {
	.name = "malthusian_stp",
	.summary =
		"Malthusian MCS, spin then park; surplus threads park outside",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_PARK,
	.init = malth_stp_init,
	.destroy = malth_destroy,
	.lock = malth_stp_lock,
	.trylock = malth_trylock,
	.unlock = malth_stp_unlock,
	.gate = malth_gate,
};
