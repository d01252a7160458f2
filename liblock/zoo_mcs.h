/* SPDX-License-Identifier: MIT */
/*
 * A small MCS queue lock (Mellor-Crummey & Scott, TOCS 1991) used as a
 * building block by the cohort, HMCS, AHMCS and Malthusian locks.  It
 * differs from a plain MCS lock in one way: the releaser hands its
 * successor a 32-bit value (ll_wait.h's handover word), which these locks use
 * to say "you also own the parent lock, and this is the n-th local handover" or
 * "acquire the parent lock yourself".
 *
 * Lock word (tail): NULL free; else the last node of the queue.
 *   acquire  (t) -> (me) by exchange; if t was NULL we own the lock,
 *            else we link t->next = me and wait on me->state;
 *   release  (me) -> (NULL) by CAS when no successor, else hand over.
 *
 * Memory model: C11 acquire/release; no TSO reliance.
 */
#ifndef ZOO_MCS_H
#define ZOO_MCS_H

#include "zoo_int.h"

#include <errno.h>

/* The handover word (ll_wait.h): ZMCS_WAIT until the predecessor hands
 * over one of the values below.  Values keep bit 0 clear (the sleeper
 * bit, LL_SLEEPER), so they count in steps of 2. */
#define ZMCS_WAIT 0u
#define ZMCS_FREE 2u /* no predecessor: we took a free lock */
#define ZMCS_GO 4u   /* handed over; parent lock not included */
/* handed over with the parent, n-th consecutive local pass */
#define ZMCS_PASS(n) (6u + 2u * (uint32_t)(n))
#define ZMCS_PASSES(v) (((v)-6u) / 2u)

struct zmcs_node {
	_Atomic(struct zmcs_node *) next;
	_Atomic uint32_t state; /* handover word, see ZMCS_WAIT */
};

struct zmcs_lock {
	_Atomic(struct zmcs_node *) tail;
};

/* Enqueue @me and wait for the lock (@park: spin-then-park, else spin);
 * returns ZMCS_FREE or the value the predecessor handed over. */
static inline uint32_t zmcs_acquire(struct zmcs_lock *l, struct zmcs_node *me,
				    bool park)
{
	struct zmcs_node *pred;

	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&me->state, ZMCS_WAIT, memory_order_relaxed);
	/* acq_rel: release publishes our reset node to the successor that
	 * reads it through the tail; acquire pairs with the releaser's CAS
	 * (tail -> NULL) so its section happens before ours. */
	pred = atomic_exchange_explicit(&l->tail, me, memory_order_acq_rel);
	if (!pred)
		return ZMCS_FREE;
	/* release: pred reads our node (state) after seeing the link */
	atomic_store_explicit(&pred->next, me, memory_order_release);
	/* acquire (inside): pairs with the release in ll_handover() */
	return ll_wait_while_val(&me->state, ZMCS_WAIT,
				 park ? LL_WAIT_SPIN_THEN_PARK : LL_WAIT_SPIN);
}

/* Take the lock only if it is free.  Returns true on success. */
static inline bool zmcs_try(struct zmcs_lock *l, struct zmcs_node *me)
{
	struct zmcs_node *expected = NULL;

	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&me->state, ZMCS_WAIT, memory_order_relaxed);
	/* (NULL) -> (me).  acq_rel: as in zmcs_acquire() */
	return atomic_compare_exchange_strong_explicit(&l->tail, &expected, me,
						       memory_order_acq_rel,
						       memory_order_relaxed);
}

/* Has a successor queued (or in the middle of queueing) behind @me? */
static inline bool zmcs_has_successor(struct zmcs_lock *l, struct zmcs_node *me)
{
	return atomic_load_explicit(&me->next, memory_order_relaxed) != NULL ||
	       atomic_load_explicit(&l->tail, memory_order_relaxed) != me;
}

/* The successor of @me, waiting for its link if it is between its
 * exchange and its link store.  Only call when zmcs_has_successor(). */
static inline struct zmcs_node *zmcs_successor(struct zmcs_node *me)
{
	struct zmcs_node *next;
	unsigned int polls = 0;

	/* acquire: pairs with the link store in zmcs_acquire() */
	while (!(next = atomic_load_explicit(&me->next, memory_order_acquire)))
		ll_spin_poll(&polls);
	return next;
}

/* Give @v (a ZMCS_* value) to the waiting @succ.  The waiter may spin or
 * park: ll_handover() wakes it if it sleeps, and touches nothing after. */
static inline void zmcs_handover(struct zmcs_node *succ, uint32_t v)
{
	ll_handover(&succ->state, v);
}

/* Release: (me) -> (NULL) if nobody queued, else give @v to the successor.
 * @me must not be touched by anyone once this returns. */
static inline void zmcs_release(struct zmcs_lock *l, struct zmcs_node *me,
				uint32_t v)
{
	struct zmcs_node *expected = me;

	if (atomic_load_explicit(&me->next, memory_order_acquire) == NULL) {
		/* release: our section before the next acquirer's exchange */
		if (atomic_compare_exchange_strong_explicit(
			    &l->tail, &expected, NULL, memory_order_release,
			    memory_order_relaxed))
			return;
		/* A successor swapped itself in; wait for its link. */
	}
	zmcs_handover(zmcs_successor(me), v);
}

/* ---- the cohort skeleton (cbomcs, hmcs, ahmcs) ---------------------------
 * A per-node MCS queue in front of a parent lock (cbomcs: a global
 * test-and-set with backoff; hmcs, ahmcs: the root MCS lock).  Inside a
 * cohort the parent travels with the node lock: a holder that passes the
 * node lock to a local successor hands it ZMCS_PASS(n), and the successor
 * owns the parent too; ZMCS_FREE or ZMCS_GO means it takes the parent
 * itself.  After @batch consecutive local passes the holder releases the
 * parent, so that the other nodes get their turn.
 *   lock:    v = zmcs_cohort_acquire(q, me, &passes, park);
 *            if (!zmcs_cohort_owns_parent(v)) take the parent;
 *   unlock:  if (!zmcs_cohort_pass(q, me, passes, batch)) {
 *                    release the parent; zmcs_release(q, me, ZMCS_GO); } */

/* Take node queue @q with @me (@park as in zmcs_acquire()); sets *@passes
 * to the local passes so far and returns the value received. */
static inline uint32_t zmcs_cohort_acquire(struct zmcs_lock *q,
					   struct zmcs_node *me,
					   uint32_t *passes, bool park)
{
	uint32_t v = zmcs_acquire(q, me, park);

	*passes = v >= ZMCS_PASS(0) ? ZMCS_PASSES(v) : 0;
	return v;
}

/* Did the parent lock come with the value @v? */
static inline bool zmcs_cohort_owns_parent(uint32_t v)
{
	return v >= ZMCS_PASS(0);
}

/* If fewer than @batch local passes were made and a successor is queued
 * on @q behind @me, pass it the node lock with the parent and return
 * true; else return false (the caller releases the parent, then @q). */
static inline bool zmcs_cohort_pass(struct zmcs_lock *q, struct zmcs_node *me,
				    uint32_t passes, uint32_t batch)
{
	if (passes >= batch || !zmcs_has_successor(q, me))
		return false;
	zmcs_handover(zmcs_successor(me), ZMCS_PASS(passes + 1));
	return true;
}

/* Destroy-time check of a per-node MCS level (hmcs, ahmcs, cbomcs):
 * is any node's queue non-empty?  Each node's state must begin with its
 * struct zmcs_lock (checked by a static_assert in each user).  relaxed: a
 * lock being destroyed is not in use; a non-empty queue means misuse. */
static inline bool zmcs_nodes_busy(struct zoo_nodes *z)
{
	for (int i = 0; i < z->n; i++) {
		struct zmcs_lock *q = zoo_nodes_peek(z, i);

		if (q && atomic_load_explicit(&q->tail, memory_order_relaxed))
			return true;
	}
	return false;
}

/* ---- two-level tree (hmcs, ahmcs) ---------------------------------------
 * A root MCS lock and one MCS queue per NUMA node, each node's state
 * beginning with its struct zmcs_lock.  The lock struct of an algorithm
 * begins with this (offsetof 0, checked by each user). */
struct zmcs_tree {
	struct zmcs_lock root LL_ALIGNED;
	struct ll_lock_key key;
	struct zoo_nodes nodes;
};

/* Allocate a zeroed lock of @size bytes that begins with a struct
 * zmcs_tree whose nodes hold @local_size bytes each.  Returns 0 or
 * ENOMEM. */
static inline int zmcs_tree_new(void **impl, size_t size, size_t local_size)
{
	struct zmcs_tree *t = ll_zalloc(size);

	if (!t)
		return ENOMEM;
	if (zoo_nodes_init(&t->nodes, local_size) != 0) {
		ll_free(t);
		return ENOMEM;
	}
	ll_lock_key_init(&t->key);
	*impl = t;
	return 0;
}

/* Free a lock made by zmcs_tree_new().  Returns 0, or EBUSY (state kept)
 * if held or queued for.  relaxed: see zmcs_nodes_busy(). */
static inline int zmcs_tree_destroy(void *impl)
{
	struct zmcs_tree *t = impl;

	if (atomic_load_explicit(&t->root.tail, memory_order_relaxed) ||
	    zmcs_nodes_busy(&t->nodes))
		return EBUSY;
	zoo_nodes_fini(&t->nodes);
	ll_tnode_forget(&t->key);
	ll_free(t);
	return 0;
}

#endif /* ZOO_MCS_H */
