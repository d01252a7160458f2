/* SPDX-License-Identifier: MIT */
/*
 * Building blocks shared by the "zoo" algorithms (partitioned ticket,
 * Anderson, cohort locks, hierarchical ticket, HMCS, AHMCS, Malthusian);
 * their waits are ll_wait.h's:
 *
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
