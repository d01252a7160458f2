/* SPDX-License-Identifier: MIT */
/*
 * The runtime's environment: RCL_SERVERS=CPULIST (the default server is
 * its first CPU; default: the last online CPU) and the mode, SCHED_FIFO
 * or degraded (RCL_DEGRADED=1, or SCHED_FIFO refused), announced once per
 * process on stderr.  Both are read once and cached (relaxed atomics: any
 * thread computes the same value).
 */
#include "rcl_int.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic int env_degraded = -1; /* -1 not announced, 1 degraded */

void rcl_announce_degraded(const char *why)
{
	if (atomic_exchange_explicit(&env_degraded, 1, memory_order_relaxed) !=
	    1)
		ll_log(LL_WARN,
		       "RCL runs in degraded mode (%s): no SCHED_FIFO, no "
		       "backup thread; servicing threads are time-sliced",
		       why);
}

/*
 * Sanitizer builds always run degraded: the ASan/TSan runtimes guard their
 * allocators and registries with spin locks that yield with sched_yield().
 * Under SCHED_FIFO, a manager that preempted a servicing thread holding
 * such a lock on the same CPU spins on it forever (yield never hands the
 * CPU to a lower priority).  Observed under ASan: the exiting manager spun
 * in Quarantine::Drain on a StaticSpinMutex that a preempted servicing
 * thread held inside the allocator.  glibc's locks sleep in the kernel,
 * so normal builds are not affected.
 */
int rcl_degraded(void)
{
	const char *env = getenv("RCL_DEGRADED");

	if (atomic_load_explicit(&env_degraded, memory_order_relaxed) < 0) {
		if (strcmp(LL_SANITIZER, "none") != 0)
			rcl_announce_degraded("sanitizer build (" LL_SANITIZER
					      "): its spin locks livelock "
					      "under SCHED_FIFO priorities");
		else if (env && strcmp(env, "1") == 0)
			rcl_announce_degraded("RCL_DEGRADED=1");
	}
	return atomic_load_explicit(&env_degraded, memory_order_relaxed) == 1;
}

/* Parse one CPU number of @list at *@p; -1 on error. */
static int parse_cpu(const char **p)
{
	char *end;
	long v = strtol(*p, &end, 10);

	if (end == *p || v < 0 || v >= CPU_SETSIZE)
		return -1;
	*p = end;
	return (int)v;
}

/* Why CPU @c of RCL_SERVERS=@list cannot be used.  ll_cpu_online() is
 * false both for a CPU that is offline and for one outside the process's
 * affinity mask (taskset): say which. */
static void bad_cpu(const char *list, int c)
{
	cpu_set_t aff;

	if (c < ll_cpu_count() && c < CPU_SETSIZE &&
	    c < sysconf(_SC_NPROCESSORS_ONLN) &&
	    sched_getaffinity(0, sizeof(aff), &aff) == 0 && !CPU_ISSET(c, &aff))
		ll_log(LL_ERROR,
		       "RCL_SERVERS='%s': CPU %d is not in this process's "
		       "CPU affinity mask",
		       list, c);
	else
		ll_log(LL_ERROR, "RCL_SERVERS='%s': CPU %d is not online", list,
		       c);
}

/* First CPU of RCL_SERVERS=CPULIST ("1", "2,3", "4-7,9"), after checking
 * the whole list; -1 (logged) if invalid. */
static int first_server_cpu(const char *list)
{
	const char *p = list;
	int first = -1, a, b;

	for (;;) {
		if ((a = parse_cpu(&p)) < 0)
			goto bad;
		b = a;
		if (*p == '-') {
			p++;
			if ((b = parse_cpu(&p)) < a)
				goto bad;
		}
		for (int c = a; c <= b; c++)
			if (!ll_cpu_online(c)) {
				bad_cpu(list, c);
				return -1;
			}
		if (first < 0)
			first = a;
		if (*p == '\0')
			return first;
		if (*p++ != ',')
			goto bad;
	}
bad:
	ll_log(LL_ERROR,
	       "RCL_SERVERS='%s': not a CPU list (e.g. 3 or 2,3 or "
	       "2-3) at '%s'",
	       list, p);
	return -1;
}

int rcl_default_server(void)
{
	static _Atomic int cached = -2;
	int cpu = atomic_load_explicit(&cached, memory_order_relaxed);
	const char *env;

	if (cpu != -2)
		return cpu;
	env = getenv("RCL_SERVERS");
	if (env && *env) {
		cpu = first_server_cpu(env);
	} else {
		cpu = -1;
		for (int c = 0; c < ll_cpu_count() && c < CPU_SETSIZE; c++)
			if (ll_cpu_online(c))
				cpu = c;
	}
	atomic_store_explicit(&cached, cpu, memory_order_relaxed);
	return cpu;
}
