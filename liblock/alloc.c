/* SPDX-License-Identifier: MIT */
/*
 * Memory placement.
 *
 * Small per-thread objects (queue nodes) are placed by first touch: they
 * are allocated and zeroed by the thread that will use them, from its own
 * glibc arena (never the program's allocator: ll_alloc.h), so their pages
 * come from that thread's node.  Asking libnuma
 * for them would cost a page (or more) per node, which is what makes LiTL
 * spend ~512 KiB per mutex.  Large server-owned structures (the RCL
 * request array) are bound to their node explicitly with ll_node_alloc().
 */
#include "ll_int.h"

#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *ll_zalloc(size_t size)
{
	void *p = ll_memalign(LL_CACHELINE, LL_ROUND_LINE(size));

	if (p)
		memset(p, 0, LL_ROUND_LINE(size));
	return p;
}

void *ll_node_alloc(size_t size, int node)
{
	void *p;

	if (ll_numa_ok() && node >= 0 && node <= numa_max_node()) {
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
	if (ll_numa_ok())
		numa_free(p, size);
	else
		munmap(p, size);
}
