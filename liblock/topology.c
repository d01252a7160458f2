/* SPDX-License-Identifier: MIT */
/*
 * CPU and NUMA topology (libnuma): CPU count, online CPUs, the node of a
 * CPU and of the calling thread.  Memory placement is alloc.c's.
 */
#include "ll_int.h"

#include <numa.h>
#include <sched.h>
#include <unistd.h>

bool ll_numa_ok(void)
{
	static _Atomic int state = -1; /* -1 unknown, 0 no, 1 yes */
	int s = atomic_load_explicit(&state, memory_order_relaxed);

	if (s < 0) {
		s = numa_available() >= 0;
		atomic_store_explicit(&state, s, memory_order_relaxed);
	}
	return s;
}

/* sysconf() reads sysfs (an opendir, or an open and a read) on every
 * call: a program that creates a lock per object (per request, per
 * connection) paid it at each liblock_init().  Read once, as libnuma reads
 * its CPU sets once; relaxed: any thread may fill the cache, with the
 * same value. */
static long cached_sysconf(_Atomic long *cache, int name)
{
	long n = atomic_load_explicit(cache, memory_order_relaxed);

	if (n == 0) {
		n = sysconf(name);
		if (n <= 0)
			n = 1;
		atomic_store_explicit(cache, n, memory_order_relaxed);
	}
	return n;
}

int ll_cpu_count(void)
{
	static _Atomic long conf;

	return (int)cached_sysconf(&conf, _SC_NPROCESSORS_CONF);
}

bool ll_cpu_online(int cpu)
{
	if (cpu < 0 || cpu >= ll_cpu_count())
		return false;
	/* numa_all_cpus_ptr is the set this process may use, read when
	 * libnuma starts: a server CPU later removed from the threads'
	 * affinity masks stays valid. */
	if (ll_numa_ok() && numa_all_cpus_ptr != NULL)
		return numa_bitmask_isbitset(numa_all_cpus_ptr, (unsigned)cpu);
	static _Atomic long onln;

	return cpu < cached_sysconf(&onln, _SC_NPROCESSORS_ONLN);
}

int ll_cpu_node(int cpu)
{
	int node;

	/* numa_all_cpus_ptr NULL: libnuma's destructor ran, and this is an
	 * exit handler running after it (rcl-run's interposer building a
	 * lock for the runtime's own mutex in at_exit(), seen under TSan) */
	if (!ll_numa_ok() || numa_all_cpus_ptr == NULL)
		return 0;
	node = numa_node_of_cpu(cpu);
	return node < 0 ? 0 : node;
}

int ll_current_node(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : ll_cpu_node(cpu);
}

static _Atomic unsigned int gate_cap_fake;

void ll_gate_cap_fake(unsigned int cap)
{
	atomic_store_explicit(&gate_cap_fake, cap, memory_order_relaxed);
}

unsigned int ll_gate_cap(void)
{
	unsigned int fake =
		atomic_load_explicit(&gate_cap_fake, memory_order_relaxed);
	cpu_set_t set;
	int n;

	if (fake)
		return fake;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		n = ll_cpu_count();
	else
		n = CPU_COUNT(&set);
	return n > 2 ? (unsigned int)n - 1 : 1;
}
