/* SPDX-License-Identifier: MIT */
/*
 * CPU and NUMA topology (libnuma), and memory placement.
 *
 * Small per-thread objects (queue nodes) are placed by first touch: they
 * are allocated and zeroed by the thread that will use them, from its own
 * glibc arena, so their pages come from that thread's node.  Asking libnuma
 * for them would cost a page (or more) per node, which is what makes LiTL
 * spend ~512 KiB per mutex.  Large server-owned structures (the RCL
 * request array) are bound to their node explicitly with ll_node_alloc().
 */
#include "ll_int.h"

#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static bool numa_ok(void)
{
	static _Atomic int state = -1; /* -1 unknown, 0 no, 1 yes */
	int s = atomic_load_explicit(&state, memory_order_relaxed);

	if (s < 0) {
		s = numa_available() >= 0;
		atomic_store_explicit(&state, s, memory_order_relaxed);
	}
	return s;
}

int ll_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

bool ll_cpu_online(int cpu)
{
	if (cpu < 0 || cpu >= ll_cpu_count())
		return false;
	/* numa_all_cpus_ptr is the set this process may use, read when
	 * libnuma starts: a server CPU later removed from the threads'
	 * affinity masks stays valid. */
	if (numa_ok())
		return numa_bitmask_isbitset(numa_all_cpus_ptr, (unsigned)cpu);
	return cpu < sysconf(_SC_NPROCESSORS_ONLN);
}

int ll_cpu_node(int cpu)
{
	int node;

	if (!numa_ok())
		return 0;
	node = numa_node_of_cpu(cpu);
	return node < 0 ? 0 : node;
}

int ll_current_node(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : ll_cpu_node(cpu);
}

void *ll_zalloc(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, LL_CACHELINE, LL_ROUND_LINE(size)) != 0)
		return NULL;
	memset(p, 0, LL_ROUND_LINE(size));
	return p;
}

void ll_free(void *p)
{
	free(p);
}

void *ll_node_alloc(size_t size, int node)
{
	void *p;

	if (numa_ok() && node >= 0 && node <= numa_max_node()) {
		p = numa_alloc_onnode(size, node);
		if (p) {
			/* Pre-fault now: a page fault inside a server's loop
			 * would preempt it (thesis §9.2). */
			memset(p, 0, size);
			return p;
		}
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void ll_node_free(void *p, size_t size)
{
	if (!p)
		return;
	if (numa_ok())
		numa_free(p, size);
	else
		munmap(p, size);
}
