/* SPDX-License-Identifier: MIT */
/*
 * clh and clh_stp: the CLH queue lock (Craig, TR 93-02-02, 1993; Magnusson,
 * Landin and Hagersten, IPPS'94; thesis Alg. 2).
 *
 * Design: the queue is implicit.  A thread marks its node WAITING, swaps
 * it into the tail, and waits on its *predecessor's* node until that turns
 * GRANTED.  Unlock grants its own node (FIFO handover) and takes the
 * predecessor's node as its node for next time: nodes migrate between
 * threads.  Unlike MCS, unlock never waits for a successor to link in.
 *
 * Ownership (who frees what).  A lock with T threads that used it has
 * T + 1 nodes: each thread owns the node its handle points to (its
 * per-(lock, thread) ll_tnode), and the lock owns the tail node once it is
 * granted (initially a dummy).  Unlock hands our node to the successor and
 * takes the predecessor's, which nobody else references any more.  So a
 * thread that exits frees exactly its handle's node (ll_tnode_dtor), and
 * destroy frees the tail node; the migrated nodes are never freed twice.
 *
 * Lock words: @tail: pred -> me by exchange.  @released: the last node
 * whose holder has left (written by unlock just before the grant, so it
 * is already past its section).  trylock: (tail, released) == (t, t) means
 * free; then tail: t -> me by CAS.  Reading @released instead of t->state
 * never touches a node that may have been freed by an exiting thread.  If
 * t was granted, reused and re-queued between the reads and the CAS (ABA,
 * which needs that whole lock cycle to fit in trylock's few instructions),
 * the CAS still succeeds, and trylock then waits for the queue ahead of it
 * like lock() does: mutual exclusion holds, non-blocking does not, in that
 * one interleaving.
 *
 * Waiting: clh spins (pause, then yield in very long waits); clh_stp
 * spins LL_SPIN_BUDGET polls, then sleeps on a futex on the predecessor's
 * node, with the sleeper bit in the node's state (see mcs.c for why).
 * Memory: 2 lines per lock plus 1 node; per (lock, thread): 1 handle line
 * and 1 node line.  Needs only C11 acquire/release.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

/* State values keep bit 0 clear: it is LL_SLEEPER. */
enum { CLH_GRANTED = 0, CLH_WAITING = 2 };

struct clh_node {
	_Atomic uint32_t state; /* CLH_WAITING until its holder unlocks */
} LL_ALIGNED;

/* The per-(lock, thread) handle: the node this thread owns now. */
struct clh_handle {
	struct clh_node *mine;
} LL_ALIGNED;

static_assert(sizeof(struct clh_handle) == LL_CACHELINE, "one line per handle");

struct clh_lock {
	/* written by every arriving thread */
	_Atomic(struct clh_node *) tail LL_ALIGNED;
	struct ll_gate gate; /* clh_stp only: see ll_wait.h */
	/* written by the holder */
	_Atomic uintptr_t owner LL_ALIGNED;  /* holder's token, 0 when free */
	_Atomic(struct clh_node *) released; /* last node granted */
	struct clh_handle *holder;	     /* holder's handle */
	struct clh_node *pred;		     /* holder's predecessor node */
	unsigned int duty;		     /* clh_stp: LL_GATE_DUTY_* */
	struct ll_lock_key key;
} LL_ALIGNED;

static_assert(sizeof(struct clh_node) == LL_CACHELINE, "one line per node");
static_assert(sizeof(struct clh_lock) == 2 * LL_CACHELINE,
	      "tail and holder on separate lines");

/* Thread exit (or destroy, for the caller): free the node we own. */
static void clh_handle_free(void *p)
{
	ll_free(((struct clh_handle *)p)->mine);
}

/* Returns 0 or ENOMEM. */
static int clh_init(void **impl, const liblock_attr_t *attr)
{
	struct clh_lock *l = ll_zalloc(sizeof(*l));
	struct clh_node *dummy = ll_zalloc(sizeof(*dummy));

	(void)attr;
	if (!l || !dummy) {
		ll_free(l);
		ll_free(dummy);
		return ENOMEM;
	}
	atomic_init(&dummy->state, CLH_GRANTED);
	atomic_init(&l->tail, dummy);
	atomic_init(&l->owner, 0);
	atomic_init(&l->released, dummy);
	ll_gate_init(&l->gate, ll_gate_cap());
	ll_lock_key_init(&l->key);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held or waited for.  Frees the tail
 * node (the lock's) and the caller's node; other threads free theirs
 * when they exit. */
static int clh_destroy(void *impl)
{
	struct clh_lock *l = impl;
	struct clh_node *t =
		atomic_load_explicit(&l->tail, memory_order_acquire);

	if (atomic_load_explicit(&t->state, memory_order_acquire) !=
	    CLH_GRANTED)
		return EBUSY;
	ll_free(t);
	ll_tnode_forget(&l->key);
	ll_free(l);
	return 0;
}

/* This thread's handle for @l, its node marked WAITING; NULL on ENOMEM. */
static inline struct clh_handle *clh_handle(struct clh_lock *l)
{
	struct clh_handle *h =
		ll_tnode_dtor(&l->key, sizeof(*h), clh_handle_free);

	if (ll_unlikely(!h))
		return NULL;
	if (ll_unlikely(!h->mine) && !(h->mine = ll_zalloc(sizeof(*h->mine))))
		return NULL;
	atomic_store_explicit(&h->mine->state, CLH_WAITING,
			      memory_order_relaxed);
	return h;
}

/* We queued behind @pred: wait for its grant, then record the holder. */
static inline void clh_enter(struct clh_lock *l, struct clh_handle *h,
			     struct clh_node *pred, enum ll_wait_policy policy)
{
	/* acquire (inside): pairs with the grant in clh_unlock_policy() */
	ll_wait_while_val(&pred->state, CLH_WAITING, policy);
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	l->holder = h;
	l->pred = pred;
	l->duty = LL_GATE_DUTY_NONE;
}

/* Blocks until granted (FIFO), waiting under @policy.  Returns 0, or
 * ENOMEM if this thread's handle or node cannot be allocated. */
static inline int clh_lock_policy(struct clh_lock *l,
				  enum ll_wait_policy policy)
{
	struct clh_handle *h = clh_handle(l);
	struct clh_node *pred;

	if (ll_unlikely(!h))
		return ENOMEM;
	/* tail: pred -> mine.  release: our successor sees our WAITING
	 * before it reads our node; acquire: pred's node is initialised */
	pred = atomic_exchange_explicit(&l->tail, h->mine,
					memory_order_acq_rel);
	clh_enter(l, h, pred, policy);
	return 0;
}

/* Returns 0, EBUSY if held or waited for, or ENOMEM.  Does not wait,
 * except in the ABA interleaving of the header comment. */
static inline int clh_trylock_policy(struct clh_lock *l,
				     enum ll_wait_policy policy)
{
	struct clh_handle *h;
	/* acquire: pairs with the exchange that made @t the tail, so the
	 * @released we read next is at least as new as t's enqueueing */
	struct clh_node *t =
		atomic_load_explicit(&l->tail, memory_order_acquire);

	if (atomic_load_explicit(&l->released, memory_order_acquire) != t)
		return EBUSY;
	if (ll_unlikely(!(h = clh_handle(l))))
		return ENOMEM;
	/* (tail, released) = (t, t) -> (mine, t).  acq_rel as in lock */
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &t, h->mine,
						     memory_order_acq_rel,
						     memory_order_relaxed))
		return EBUSY;
	clh_enter(l, h, t, policy); /* returns at once unless ABA, above */
	return 0;
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static inline int clh_unlock_policy(struct clh_lock *l,
				    enum ll_wait_policy policy)
{
	struct clh_handle *h;
	struct clh_node *mine;
	bool wake;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	/* before the release: afterwards the lock may be gone */
	wake = policy != LL_WAIT_SPIN && ll_gate_leave(&l->gate, l->duty);
	h = l->holder;
	mine = h->mine;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	/* The predecessor's node is ours from now on: its holder left it
	 * and only we were waiting on it. */
	h->mine = l->pred;
	/* Last write to the lock: after the grant, a successor may unlock
	 * and the lock be destroyed.  release: pairs with trylock's acquire */
	atomic_store_explicit(&l->released, mine, memory_order_release);
	/* release (inside): the section's writes go with the lock */
	ll_wake_store(&mine->state, CLH_GRANTED, policy, 1);
	if (ll_unlikely(wake))
		ll_gate_wake(&l->gate);
	return 0;
}

/* The ops entries: the two policies of the shared code. */
static int clh_lock(void *impl)
{
	return clh_lock_policy(impl, LL_WAIT_SPIN);
}

static int clh_trylock(void *impl)
{
	return clh_trylock_policy(impl, LL_WAIT_SPIN);
}

static int clh_unlock(void *impl)
{
	return clh_unlock_policy(impl, LL_WAIT_SPIN);
}

/* A free lock is taken at once; otherwise the thread queues only once
 * the admission gate lets it (ll_wait.h). */
static int clh_stp_lock(void *impl)
{
	struct clh_lock *l = impl;
	int rc = clh_trylock_policy(l, LL_WAIT_SPIN_THEN_PARK);

	if (ll_likely(rc != EBUSY))
		return rc;
	ll_gate_enter(&l->gate);
	if (ll_unlikely((rc = clh_lock_policy(l, LL_WAIT_SPIN_THEN_PARK)))) {
		ll_gate_cancel(&l->gate);
		return rc;
	}
	l->duty = ll_gate_acquired(&l->gate);
	return 0;
}

static struct ll_gate *clh_gate(void *impl)
{
	return &((struct clh_lock *)impl)->gate;
}

static int clh_stp_trylock(void *impl)
{
	return clh_trylock_policy(impl, LL_WAIT_SPIN_THEN_PARK);
}

static int clh_stp_unlock(void *impl)
{
	return clh_unlock_policy(impl, LL_WAIT_SPIN_THEN_PARK);
}

const struct ll_ops ll_clh_ops = {
	.name = "clh",
	.summary = "CLH queue lock: FIFO, each waiter spins on its "
		   "predecessor's node",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = clh_init,
	.destroy = clh_destroy,
	.lock = clh_lock,
	.trylock = clh_trylock,
	.unlock = clh_unlock,
};

const struct ll_ops ll_clh_stp_ops = {
	.name = "clh_stp",
	.summary =
		"CLH queue lock, spin then park; surplus threads park outside",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER | LIBLOCK_CAP_PARK,
	.init = clh_init,
	.destroy = clh_destroy,
	.lock = clh_stp_lock,
	.trylock = clh_stp_trylock,
	.unlock = clh_stp_unlock,
	.gate = clh_gate,
};
