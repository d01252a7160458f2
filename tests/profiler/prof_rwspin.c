/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for reader-writer locks, spin locks and the timed lock
 * calls (t_rwspin.sh).  The program measures, with its own clock reads
 * inside each critical section, how long it holds each lock and how long
 * its timed calls wait, and prints these figures as JSON; rcl-prof's hold
 * and wait times must contain them (and not much more), and its counts
 * must be exact.
 *
 *   g_rw     2 readers x 400 read holds of ~20 us, 1 writer x 40 write
 *            holds of ~200 us: two rows, read side and write side
 *   g_spin   pthread_spin_init'd; 2 threads x 2,000 holds of ~2 us
 *   g_mx     a pthread_mutex_timedlock that waits ~20 ms (contended)
 *   g_rw2    a pthread_rwlock_timedwrlock that waits ~20 ms for a reader,
 *            and a pthread_rwlock_clockrdlock that waits ~20 ms for a
 *            writer
 *
 * Each timed wait is bracketed from both sides, so that no timing
 * assumption holds on a loaded machine: the waiter's own clock reads
 * around the call contain the profiler's wait (the "_ns" figures), and
 * the holder releases only once it has seen the waiter blocked in the
 * kernel, 20 ms after that: the profiler's wait contains the interval
 * from the sighting to the release (the "_min_ns" figures).
 */
#define _GNU_SOURCE
#include "prof_blocked.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { READERS = 2, READS = 400, WRITES = 40, SPINNERS = 2, SPINS = 2000 };

static pthread_rwlock_t g_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t g_rw2 = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t g_spin;
/* relaxed: summed by threads, read after they are joined */
static _Atomic uint64_t read_ns, write_ns, spin_ns;
/* The same, over the holds during which the thread was preempted: the
 * time from before the lock call to after the unlock call, less the hold
 * measured inside.  Relaxed, as above. */
static _Atomic uint64_t read_slack_ns, write_slack_ns, spin_slack_ns;
static uint64_t timed_mx_ns, timed_wr_ns, clock_rd_ns;
static uint64_t timed_mx_min_ns, timed_wr_min_ns, clock_rd_min_ns;
/* The thread id of the timed waiter, published just before its call:
 * release, paired with the acquire load in wait_on(). */
static _Atomic pid_t waiter_tid;
/* Set by the waiter once its call has returned (release, paired with
 * the acquire load in wait_on(): it stops looking for a blocked waiter). */
static atomic_bool waiter_done;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Busy for about @ns; returns the time measured from entry. */
static uint64_t busy(uint64_t ns)
{
	uint64_t t0 = now_ns(), t;

	while ((t = now_ns()) - t0 < ns)
		;
	return t - t0;
}

/* Involuntary context switches of the calling thread so far. */
static long preemptions(void)
{
	struct rusage u;

	return getrusage(RUSAGE_THREAD, &u) ? -1 : u.ru_nivcsw;
}

/* Bracketing of one hold from outside (struct outer, before the lock call
 * and after the unlock call).  The profiler's hold starts before the
 * program's first clock read inside and ends after its last: the excess
 * is its bookkeeping, unless the thread is preempted between the two
 * clock reads.  A hold during which the thread was preempted may then
 * exceed by up to the whole outer interval, less the hold: its slack. */
struct outer {
	long csw;
	uint64_t t;
};

static struct outer outer_start(void)
{
	struct outer o;

	o.csw = preemptions();
	o.t = now_ns();
	return o;
}

static uint64_t outer_slack(struct outer o, uint64_t hold)
{
	uint64_t t = now_ns();

	return preemptions() != o.csw ? t - o.t - hold : 0;
}

static struct timespec deadline(clockid_t clock, int s)
{
	struct timespec t;

	clock_gettime(clock, &t);
	t.tv_sec += s;
	return t;
}

static void *reader(void *a)
{
	uint64_t sum = 0, slack = 0;

	for (int i = 0; i < READS; i++) {
		struct outer o = outer_start();
		uint64_t h;

		pthread_rwlock_rdlock(&g_rw);
		h = busy(20000);
		pthread_rwlock_unlock(&g_rw);
		sum += h;
		slack += outer_slack(o, h);
	}
	atomic_fetch_add_explicit(&read_ns, sum, memory_order_relaxed);
	atomic_fetch_add_explicit(&read_slack_ns, slack, memory_order_relaxed);
	return a;
}

static void *writer(void *a)
{
	uint64_t sum = 0, slack = 0;

	for (int i = 0; i < WRITES; i++) {
		struct outer o = outer_start();
		uint64_t h;

		pthread_rwlock_wrlock(&g_rw);
		h = busy(200000);
		pthread_rwlock_unlock(&g_rw);
		sum += h;
		slack += outer_slack(o, h);
		usleep(100);
	}
	atomic_fetch_add_explicit(&write_ns, sum, memory_order_relaxed);
	atomic_fetch_add_explicit(&write_slack_ns, slack, memory_order_relaxed);
	return a;
}

static void *spinner(void *a)
{
	uint64_t sum = 0, slack = 0;

	for (int i = 0; i < SPINS; i++) {
		struct outer o = outer_start();
		uint64_t h;

		pthread_spin_lock(&g_spin);
		h = busy(2000);
		pthread_spin_unlock(&g_spin);
		sum += h;
		slack += outer_slack(o, h);
	}
	atomic_fetch_add_explicit(&spin_ns, sum, memory_order_relaxed);
	atomic_fetch_add_explicit(&spin_slack_ns, slack, memory_order_relaxed);
	return a;
}

static void *timed_mx(void *a)
{
	struct timespec d = deadline(CLOCK_REALTIME, 10);
	uint64_t t0;

	atomic_store_explicit(&waiter_tid, prof_gettid(), memory_order_release);
	t0 = now_ns();
	if (pthread_mutex_timedlock(&g_mx, &d) == 0) {
		timed_mx_ns = now_ns() - t0;
		pthread_mutex_unlock(&g_mx);
	}
	atomic_store_explicit(&waiter_done, true, memory_order_release);
	return a;
}

static void *timed_wr(void *a)
{
	struct timespec d = deadline(CLOCK_REALTIME, 10);
	uint64_t t0;

	atomic_store_explicit(&waiter_tid, prof_gettid(), memory_order_release);
	t0 = now_ns();
	if (pthread_rwlock_timedwrlock(&g_rw2, &d) == 0) {
		timed_wr_ns = now_ns() - t0;
		pthread_rwlock_unlock(&g_rw2);
	}
	atomic_store_explicit(&waiter_done, true, memory_order_release);
	return a;
}

static void *clock_rd(void *a)
{
	struct timespec d = deadline(CLOCK_MONOTONIC, 10);
	uint64_t t0;

	atomic_store_explicit(&waiter_tid, prof_gettid(), memory_order_release);
	t0 = now_ns();
	if (pthread_rwlock_clockrdlock(&g_rw2, CLOCK_MONOTONIC, &d) == 0) {
		clock_rd_ns = now_ns() - t0;
		pthread_rwlock_unlock(&g_rw2);
	}
	atomic_store_explicit(&waiter_done, true, memory_order_release);
	return a;
}

/* Start @fn while holding, through @hold, the lock it waits for; release
 * 20 ms after seeing it blocked in the lock call, and store the time from
 * the sighting to the release in @min_ns (a lower bound of the waiter's
 * wait: it was waiting before the sighting and acquires after the
 * release).  Fails after 10 s without a sighting, or if the waiter's call
 * returns before it (the lock did not make it wait). */
static int wait_on(void *(*fn)(void *), void (*hold)(int), uint64_t *min_ns)
{
	struct timespec nap = {0, 200000};
	uint64_t start, seen, rel;
	pthread_t t;
	pid_t tid;

	atomic_store_explicit(&waiter_tid, 0, memory_order_relaxed);
	atomic_store_explicit(&waiter_done, false, memory_order_relaxed);
	hold(1);
	if (pthread_create(&t, NULL, fn, NULL))
		return 1;
	start = now_ns();
	for (;;) {
		tid = atomic_load_explicit(&waiter_tid, memory_order_acquire);
		if (tid && prof_blocked(tid))
			break;
		if (atomic_load_explicit(&waiter_done, memory_order_acquire) ||
		    now_ns() - start > 10000000000u) {
			fprintf(stderr, "prof_rwspin: the waiter was never "
					"seen blocked in the lock call\n");
			hold(0);
			pthread_join(t, NULL);
			return 1;
		}
		nanosleep(&nap, NULL);
	}
	seen = now_ns();
	usleep(20000);
	rel = now_ns();
	hold(0);
	*min_ns = rel - seen;
	return pthread_join(t, NULL);
}

static void hold_mx(int on)
{
	if (on)
		pthread_mutex_lock(&g_mx);
	else
		pthread_mutex_unlock(&g_mx);
}

static void hold_rd(int on)
{
	if (on)
		pthread_rwlock_rdlock(&g_rw2);
	else
		pthread_rwlock_unlock(&g_rw2);
}

static void hold_wr(int on)
{
	if (on)
		pthread_rwlock_wrlock(&g_rw2);
	else
		pthread_rwlock_unlock(&g_rw2);
}

int main(void)
{
	pthread_t t[READERS + 1 + SPINNERS];
	int n = 0;

	if (pthread_spin_init(&g_spin, PTHREAD_PROCESS_PRIVATE))
		return 1;
	for (int i = 0; i < READERS; i++)
		if (pthread_create(&t[n++], NULL, reader, NULL))
			return 1;
	if (pthread_create(&t[n++], NULL, writer, NULL))
		return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	/* The spinners run alone: with the readers beside them, more
	 * threads than CPUs, a spin-lock holder preempted between the
	 * profiler's clock read and ours (in the wrapper) would count a
	 * time slice the program cannot see. */
	n = 0;
	for (int i = 0; i < SPINNERS; i++)
		if (pthread_create(&t[n++], NULL, spinner, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (wait_on(timed_mx, hold_mx, &timed_mx_min_ns) ||
	    wait_on(timed_wr, hold_rd, &timed_wr_min_ns) ||
	    wait_on(clock_rd, hold_wr, &clock_rd_min_ns))
		return 1;
	if (!timed_mx_ns || !timed_wr_ns || !clock_rd_ns)
		return 2;
	pthread_spin_destroy(&g_spin);
	printf("{\"reads\": %d, \"writes\": %d, \"spins\": %d, "
	       "\"read_ns\": %lu, \"write_ns\": %lu, \"spin_ns\": %lu, "
	       "\"read_slack_ns\": %lu, \"write_slack_ns\": %lu, "
	       "\"spin_slack_ns\": %lu, "
	       "\"timed_mx_ns\": %lu, \"timed_wr_ns\": %lu, "
	       "\"clock_rd_ns\": %lu, \"timed_mx_min_ns\": %lu, "
	       "\"timed_wr_min_ns\": %lu, \"clock_rd_min_ns\": %lu}\n",
	       READERS * READS, WRITES, SPINNERS * SPINS,
	       (unsigned long)read_ns, (unsigned long)write_ns,
	       (unsigned long)spin_ns, (unsigned long)read_slack_ns,
	       (unsigned long)write_slack_ns, (unsigned long)spin_slack_ns,
	       (unsigned long)timed_mx_ns, (unsigned long)timed_wr_ns,
	       (unsigned long)clock_rd_ns, (unsigned long)timed_mx_min_ns,
	       (unsigned long)timed_wr_min_ns, (unsigned long)clock_rd_min_ns);
	return 0;
}
