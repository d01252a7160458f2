/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the RCL runtime tests.  Every suite runs twice from main():
 * once as configured (SCHED_FIFO when permitted) and once with
 * RCL_DEGRADED=1.  Check forks a process per test, so each test starts
 * its own servers and reads the mode afresh; each test stops its servers
 * (rcl_shutdown) and has a Check timeout.
 */
#ifndef TESTS_RCL_TEST_H
#define TESTS_RCL_TEST_H

#include "config.h" /* _GNU_SOURCE */

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "liblock.h"
#include "rcl.h"

#define TEST_TIMEOUT 60

static inline double rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void rt_init_rcl(liblock_lock_t *l, int server)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = "rcl";
	attr.flags = LIBLOCK_ATTR_FIXED;
	attr.server = server;
	ck_assert_int_eq(liblock_init(l, &attr), 0);
	ck_assert_str_eq(liblock_lock_algorithm(l), "rcl");
}

static inline void rt_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	ck_assert_int_eq(pthread_create(t, NULL, fn, arg), 0);
}

/* Join @t, failing the test if it takes more than @seconds. */
static inline void rt_join(pthread_t t, int seconds)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += seconds;
	ck_assert_msg(pthread_timedjoin_np(t, NULL, &dl) == 0,
		      "a thread did not finish within %d s", seconds);
}

/* Wait (bounded) until *@flag becomes nonzero. */
static inline void rt_wait_flag(atomic_int *flag, int seconds)
{
	double end = rt_now() + seconds;

	while (!atomic_load(flag)) {
		ck_assert_msg(rt_now() < end, "flag not set within %d s",
			      seconds);
		usleep(200);
	}
}

/* Wait until *@done (a progress count the test's threads bump, relaxed)
 * reaches @want, failing only if it stops moving for @stall seconds.  A
 * deadlock stops all progress; a loaded machine (a sanitizer build,
 * time-sliced servers, a server sharing the clients' last CPU) only slows
 * it, so a bound on the whole run would measure throughput (the Check
 * timeout still caps the test). */
static inline void rt_wait_progress(atomic_long *done, long want, int stall,
				    const char *what)
{
	long seen = -1, now;
	double last = rt_now();

	while ((now = atomic_load_explicit(done, memory_order_relaxed)) <
	       want) {
		if (now != seen) {
			seen = now;
			last = rt_now();
		}
		ck_assert_msg(rt_now() - last < stall,
			      "%s stalled: no progress for %d s at %ld of %ld",
			      what, stall, now, want);
		usleep(10000);
	}
}

/* The servicing threads' counters (cs, cs_inline, sweeps, idle_parks,
 * slow_path, multi_lock_sweeps, try_busy, deferred) read 0 in a
 * --disable-lock-stats build: assert on them only where they are counted. */
#define RT_COUNTED(stmt)                                                       \
	do {                                                                   \
		if (RCL_LOCK_STATS) {                                          \
			stmt;                                                  \
		}                                                              \
	} while (0)

static inline rcl_stats_t rt_stats(int cpu)
{
	rcl_stats_t st;

	ck_assert_int_eq(rcl_stats(cpu, &st), 0);
	return st;
}

/* Run @s as configured, then in degraded mode. */
static inline int rt_main(Suite *(*make)(const char *mode))
{
	const char *fork_env = getenv("CK_FORK");
	int failed = 0;
	SRunner *sr;

	printf("# mode: %s\n", getenv("RCL_DEGRADED")
				       ? "RCL_DEGRADED set"
				       : "SCHED_FIFO if permitted");
	sr = srunner_create(make("fifo"));
	srunner_run_all(sr, CK_NORMAL);
	failed += srunner_ntests_failed(sr);
	srunner_free(sr);
	if (fork_env && strcmp(fork_env, "no") == 0) {
		printf("# CK_FORK=no: the degraded-mode run needs fork mode\n");
		return failed == 0 ? 0 : 1;
	}
	setenv("RCL_DEGRADED", "1", 1);
	printf("# mode: RCL_DEGRADED=1\n");
	sr = srunner_create(make("degraded"));
	srunner_run_all(sr, CK_NORMAL);
	failed += srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

#endif
