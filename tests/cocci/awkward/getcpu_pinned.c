/* SPDX-License-Identifier: MIT */
/* expect: held getcpu() */
/* A thread pinned to one CPU records getcpu() under a lock (a
 * per-CPU statistics/NUMA placement pattern).
 * The defect it guards against: getcpu() (glibc 2.29+, and syscall(SYS_getcpu)) is
 * not in rcl-refactor's list of thread-dependent calls (sched_getcpu()
 * is), so the section is delegated and under LIBLOCK_LOCK=rcl it runs on
 * the server's CPU, not the one the thread is pinned to. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int where[8];
static int n;

int main(void)
{
	cpu_set_t set;
	unsigned cpu = 99;
	int want = 0;

	/* the first CPU this process may use */
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		while (want < CPU_SETSIZE - 1 && !CPU_ISSET(want, &set))
			want++;
	CPU_ZERO(&set);
	CPU_SET(want, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return 0; /* cannot pin: nothing to compare */
	for (int i = 0; i < 4; i++) {
		pthread_mutex_lock(&m);
		getcpu(&cpu, NULL);
		where[n++] = (int)cpu;
		pthread_mutex_unlock(&m);
	}
	printf("pinned: %s\n", where[0] == want && where[1] == want &&
	       where[2] == want && where[3] == want ? "yes" : "no");
	return where[0] == want && where[3] == want ? 0 : 1;
}
