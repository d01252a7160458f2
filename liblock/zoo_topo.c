/* SPDX-License-Identifier: MIT */
/*
 * Topology and per-node state for the NUMA-aware zoo algorithms (see
 * zoo_int.h).  The node of a thread is its current CPU (sched_getcpu)
 * looked up in libnuma's real cpu -> node map, copied once into a table;
 * never "cpu / (ncpus / nnodes)", which is wrong on machines that
 * interleave CPU numbers across sockets.
 */
#include "zoo_int.h"

#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

static _Atomic int fake_nodes;	       /* 0: real topology */
static _Atomic unsigned int fake_next; /* round-robin pretend nodes */
static __thread int fake_mine = -1;

static int real_nodes = 1;
static int ncpus;
static int *cpu_node; /* [ncpus], read-only once built */

/* Once per process: the node count and a cpu -> node table.  Asking
 * libnuma on every acquisition (numa_node_of_cpu copies a CPU mask per
 * node) cost about 1,800 cycles.  Filling the table before any zoo lock
 * exists also keeps concurrent first numa_node_of_cpu() calls away: they
 * fill libnuma's mask cache without a lock and leak a mask. */
static void topo_once(void)
{
	int cpus = ll_cpu_count();

	if (numa_available() >= 0 && numa_max_node() > 0)
		real_nodes = numa_max_node() + 1;
	cpu_node = ll_calloc((size_t)cpus, sizeof(*cpu_node));
	if (!cpu_node)
		return; /* every thread then reads node 0: correct, not local */
	for (int cpu = 0; cpu < cpus; cpu++)
		cpu_node[cpu] = ll_cpu_node(cpu);
	ncpus = cpus;
}

int zoo_node_count(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int n = atomic_load_explicit(&fake_nodes, memory_order_relaxed);

	if (n > 0)
		return n;
	pthread_once(&once, topo_once);
	return real_nodes;
}

/* Called only for locks built after zoo_node_count() ran topo_once. */
int zoo_my_node(int n)
{
	int cpu, node;

	if (atomic_load_explicit(&fake_nodes, memory_order_relaxed) > 0) {
		if (fake_mine < 0)
			fake_mine = (int)atomic_fetch_add_explicit(
				&fake_next, 1, memory_order_relaxed);
		return fake_mine % n;
	}
	if (n == 1)
		return 0;
	cpu = sched_getcpu();
	node = cpu >= 0 && cpu < ncpus ? cpu_node[cpu] : 0;
	/* A node brought online after the lock was built folds into the
	 * table rather than indexing past it. */
	return node < n ? node : node % n;
}

void zoo_topo_fake(int n)
{
	atomic_store_explicit(&fake_nodes, n > 0 ? n : 0, memory_order_relaxed);
}

void zoo_topo_fake_self(int node)
{
	fake_mine = node;
}

int zoo_nodes_init(struct zoo_nodes *z, size_t size)
{
	z->n = zoo_node_count();
	z->size = size;
	z->slot = ll_calloc((size_t)z->n, sizeof(*z->slot));
	return z->slot ? 0 : ENOMEM;
}

void zoo_nodes_fini(struct zoo_nodes *z)
{
	/* acquire: pairs with the release that published each slot */
	for (int i = 0; i < z->n; i++)
		ll_free(atomic_load_explicit(&z->slot[i],
					     memory_order_acquire));
	ll_free(z->slot);
	z->slot = NULL;
}

void *zoo_nodes_mine(struct zoo_nodes *z, int *node)
{
	int i = zoo_my_node(z->n);
	void *s, *expected = NULL;

	*node = i;
	/* acquire: pairs with the release CAS below (zeroed contents) */
	s = atomic_load_explicit(&z->slot[i], memory_order_acquire);
	if (ll_likely(s != NULL))
		return s;
	if (!(s = ll_zalloc(z->size)))
		return NULL;
	/* release: the zeroed state before its pointer.  Two threads of a
	 * new node may race: the loser frees its copy and uses the winner's. */
	if (atomic_compare_exchange_strong_explicit(&z->slot[i], &expected, s,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return s;
	ll_free(s);
	return expected;
}
