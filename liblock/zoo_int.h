/* SPDX-License-Identifier: MIT */
/*
 * Building blocks shared by the "zoo" algorithms (partitioned ticket,
 * Anderson, cohort locks, hierarchical ticket, HMCS, AHMCS, Malthusian):
 *
 *  - a handover word that carries a value from releaser to waiter and lets
 *    the waiter spin (yielding after a budget, ll_spin_poll) or
 *    spin-then-park on a futex;
 *  - the NUMA node of the calling thread, clamped to the node count the
 *    lock was built for, with a hidden hook that lets tests pretend the
 *    machine has several nodes;
 *  - lazily allocated per-node state, so a lock pays only for the nodes
 *    its threads actually ran on.
 *
 * Memory model: C11 only; every ordering is commented at its use.
 */
#ifndef ZOO_INT_H
#define ZOO_INT_H

#include "ll_int.h"
#include "ll_wait.h"

/* ---- handover word ------------------------------------------------------
 * (state): WAIT -> v by the releaser (any v other than WAIT and PARKED);
 * a spin-then-park waiter moves WAIT -> PARKED before it sleeps, and the
 * releaser, whose exchange then returns PARKED, wakes it.  The releaser
 * touches the word once (the exchange) and then only passes its address
 * to the kernel, so the waiter may free the word as soon as it sees v. */
#define ZOO_WAIT 0u
#define ZOO_PARKED UINT32_MAX

/* Wait until *@w holds a value and return it.  @park: spin-then-park,
 * else spin (yielding after LL_SPIN_YIELD_BUDGET polls). */
static inline uint32_t zoo_await(_Atomic uint32_t *w, bool park)
{
	unsigned int polls = 0;
	uint32_t v;

	for (;;) {
		/* acquire: pairs with the release exchange in zoo_handoff() */
		v = atomic_load_explicit(w, memory_order_acquire);
		if (v != ZOO_WAIT && v != ZOO_PARKED)
			return v;
		if (!park) {
			ll_spin_poll(&polls);
			continue;
		}
		if (++polls < LL_SPIN_BUDGET) {
			ll_cpu_relax();
			continue;
		}
		/* relaxed: the value itself is re-read with acquire above;
		 * the CAS and the releaser's exchange are RMWs of one word,
		 * so exactly one of them sees the other. */
		v = ZOO_WAIT;
		if (atomic_compare_exchange_strong_explicit(
			    w, &v, ZOO_PARKED, memory_order_relaxed,
			    memory_order_relaxed) ||
		    v == ZOO_PARKED)
			ll_futex_wait(w, ZOO_PARKED, NULL, CLOCK_MONOTONIC);
	}
}

/* Give @v (not WAIT, not PARKED) to the waiter on @w. */
static inline void zoo_handoff(_Atomic uint32_t *w, uint32_t v)
{
	/* release: the critical section's writes happen before the
	 * waiter's acquire load in zoo_await() */
	if (atomic_exchange_explicit(w, v, memory_order_release) == ZOO_PARKED)
		ll_futex_wake(w, 1);
}

/* Spin until *@w == @v (ticket-style waits; spin policy only). */
static inline void zoo_spin_until(_Atomic uint32_t *w, uint32_t v)
{
	unsigned int polls = 0;

	/* acquire: pairs with the release store that granted @v */
	while (atomic_load_explicit(w, memory_order_acquire) != v)
		ll_spin_poll(&polls);
}

/* ---- topology ------------------------------------------------------------ */

/* Number of NUMA nodes (numa_max_node() + 1, or 1 without libnuma), or the
 * pretend count set by zoo_topo_fake(). */
int zoo_node_count(void) LL_HIDDEN;
/* The calling thread's node, in [0, @n): its current CPU's node from
 * libnuma, or its pretend node (round-robin over threads) under
 * zoo_topo_fake().  A thread may migrate at any time: callers remember
 * which per-node state they used until they release it. */
int zoo_my_node(int n) LL_HIDDEN;
/* Tests only: pretend the machine has @n nodes (0: the real topology).
 * Locks built earlier keep their node count and fold nodes into it. */
void zoo_topo_fake(int n) LL_HIDDEN;
/* Tests only: the calling thread's pretend node (-1: next round-robin). */
void zoo_topo_fake_self(int node) LL_HIDDEN;

/* ---- per-node state, allocated on first use from that node ------------- */

struct zoo_nodes {
	int n;		       /* node count when the lock was built */
	size_t size;	       /* bytes per node's state */
	_Atomic(void *) *slot; /* [n], NULL until first used */
};

/* Returns 0 or ENOMEM. */
int zoo_nodes_init(struct zoo_nodes *z, size_t size) LL_HIDDEN;
/* Free every node's state and the table. */
void zoo_nodes_fini(struct zoo_nodes *z) LL_HIDDEN;
/* The state of the calling thread's node (zeroed on first use by a thread
 * of that node, so it is placed there by first touch), or NULL on ENOMEM.
 * *@node receives the node index. */
void *zoo_nodes_mine(struct zoo_nodes *z, int *node) LL_HIDDEN;
/* Node @i's state if it exists, else NULL (for destroy-time checks). */
static inline void *zoo_nodes_peek(struct zoo_nodes *z, int i)
{
	/* acquire: pairs with the release CAS that published the state */
	return atomic_load_explicit(&z->slot[i], memory_order_acquire);
}

#endif /* ZOO_INT_H */
