/* SPDX-License-Identifier: MIT */
/*
 * Reserving server CPUs (thesis §4.1: "no application thread runs on a
 * server hardware thread").
 *
 * Existing threads: every thread listed in /proc/self/task gets the
 * reserved CPUs removed from its mask with sched_setaffinity(tid).  The
 * pass is repeated until it changes nothing, so a thread cloned during a
 * pass (by a parent not yet updated) is caught by the next one.
 * Future threads: Linux threads inherit the mask of the thread that
 * creates them, and every application thread has lost the reserved CPUs,
 * so threads created later never get them.  Exceptions, documented in
 * rcl(3): a thread that sets its own affinity afterwards, and a thread
 * created from inside a critical section (it inherits the server CPU).
 *
 * The runtime's own threads are recognised by their mask: exactly one CPU
 * that is a server CPU.  A thread whose mask would become empty is left
 * alone (with a warning): it was pinned by the application to a server
 * CPU.
 */
#include "rcl_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t aff_mu = PTHREAD_MUTEX_INITIALIZER;
static cpu_set_t aff_reserved; /* CPUs taken from the application */
static cpu_set_t aff_servers;  /* every server CPU */
static cpu_set_t aff_app;      /* the application's CPUs at first use */
static bool aff_app_known;

/* Called with aff_mu held. */
static void learn_app_mask(void)
{
	if (aff_app_known)
		return;
	if (sched_getaffinity(getpid(), sizeof(aff_app), &aff_app) != 0) {
		CPU_ZERO(&aff_app);
		for (int c = 0; c < ll_cpu_count() && c < CPU_SETSIZE; c++)
			if (ll_cpu_online(c))
				CPU_SET(c, &aff_app);
	}
	aff_app_known = true;
}

bool rcl_affinity_can_reserve(int cpu)
{
	cpu_set_t left;

	rcl_mutex_lock(&aff_mu);
	learn_app_mask();
	CPU_XOR(&left, &aff_app, &aff_reserved);
	CPU_AND(&left, &left, &aff_app);
	CPU_CLR(cpu, &left);
	rcl_mutex_unlock(&aff_mu);
	return CPU_COUNT(&left) > 0;
}

/* A runtime thread: pinned to exactly one server CPU. */
static bool runtime_mask(const cpu_set_t *m)
{
	cpu_set_t both;

	if (CPU_COUNT(m) != 1)
		return false;
	CPU_AND(&both, m, &aff_servers);
	return CPU_COUNT(&both) == 1;
}

/* Apply @edit to every non-runtime thread; returns how many changed. */
static int each_thread(bool (*edit)(cpu_set_t *m, int cpu), int cpu)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int changed = 0;

	if (!d) {
		ll_log(LL_WARN, "cannot list /proc/self/task: %s",
		       strerror(errno));
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(e->d_name);
		cpu_set_t m;

		if (tid <= 0 || sched_getaffinity(tid, sizeof(m), &m) != 0)
			continue; /* ".", "..", or the thread just exited */
		if (runtime_mask(&m) || !edit(&m, cpu))
			continue;
		if (sched_setaffinity(tid, sizeof(m), &m) == 0)
			changed++;
	}
	closedir(d);
	return changed;
}

static bool drop_reserved(cpu_set_t *m, int cpu)
{
	cpu_set_t hit, left;

	CPU_AND(&hit, m, &aff_reserved);
	if (CPU_COUNT(&hit) == 0)
		return false;
	CPU_XOR(&left, m, &hit);
	if (CPU_COUNT(&left) == 0) {
		ll_log(LL_WARN, "a thread pinned to server CPU %d keeps it",
		       cpu);
		return false;
	}
	*m = left;
	return true;
}

static bool add_cpu(cpu_set_t *m, int cpu)
{
	if (CPU_ISSET(cpu, m))
		return false;
	CPU_SET(cpu, m);
	return true;
}

/* fork() child handler: give the forking thread back the CPUs the parent
 * reserved, forget the reservations (the child has no server).  aff_mu
 * is free: it is only taken under server.c's srv_mu, which server.c's
 * prepare handler holds across the fork.  System calls and memory only. */
static void affinity_forked(void)
{
	cpu_set_t m, give;

	CPU_AND(&give, &aff_reserved, &aff_app);
	if (CPU_COUNT(&give) > 0 && sched_getaffinity(0, sizeof(m), &m) == 0 &&
	    !runtime_mask(&m)) {
		CPU_OR(&m, &m, &give);
		(void)sched_setaffinity(0, sizeof(m), &m);
	}
	CPU_ZERO(&aff_reserved);
	CPU_ZERO(&aff_servers);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_setup(void)
{
	if (pthread_atfork(NULL, NULL, affinity_forked) != 0)
		ll_fatal("cannot register the RCL affinity fork handler");
}

void rcl_affinity_fork_init(void)
{
	pthread_once(&fork_once, fork_setup);
}

int rcl_affinity_reserve(int cpu, bool exclusive)
{
	/* before the first reservation, which is what a child must undo */
	pthread_once(&fork_once, fork_setup);
	rcl_mutex_lock(&aff_mu);
	learn_app_mask();
	CPU_SET(cpu, &aff_servers);
	if (exclusive) {
		CPU_SET(cpu, &aff_reserved);
		/* until a pass finds every thread already clean */
		for (int pass = 0; pass < 16; pass++)
			if (each_thread(drop_reserved, cpu) == 0)
				break;
	}
	rcl_mutex_unlock(&aff_mu);
	return 0;
}

void rcl_affinity_release(int cpu)
{
	rcl_mutex_lock(&aff_mu);
	if (CPU_ISSET(cpu, &aff_reserved)) {
		CPU_CLR(cpu, &aff_reserved);
		CPU_CLR(cpu, &aff_servers);
		if (CPU_ISSET(cpu, &aff_app))
			each_thread(add_cpu, cpu);
	} else {
		CPU_CLR(cpu, &aff_servers);
	}
	rcl_mutex_unlock(&aff_mu);
}
