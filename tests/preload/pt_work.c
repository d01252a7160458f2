/* SPDX-License-Identifier: MIT */
/*
 * A plain pthread program (no liblock calls) that the preload tests run
 * under rcl-run: whatever mutexes it uses, the checks below hold only if
 * the replaced locks are correct.  Usage: pt_work MODE, MODE one of
 *   stress   counters on five lines, trylock, timedlock, nested locks,
 *            producer/consumer and broadcast, more threads than CPUs
 *   types    normal, default, recursive, error-checking mutexes
 *   threads  5,000 threads in waves, all through the same mutexes
 *   wrappers calls every interposed function at least once, also through
 *            the pre-2.34 / pre-2.3.2 symbol versions
 *   overhead ns per uncontended lock/unlock pair, before and after the
 *            process first creates a thread (a measurement, no check)
 * Exit 0 on success, 1 with a one-line reason on stderr.
 * $PT_SCALE multiplies the iteration counts (default 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt.h"

#define LINES 5

int scale = 1;

/* ---- stress ------------------------------------------------------------- */

static pthread_mutex_t static_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t dyn_lock;
static struct {
	long value;
	char pad[128 - sizeof(long)];
} lines[LINES];
static atomic_int inside, overlaps;
static long nested_a, nested_b;

static void section(void)
{
	/* relaxed: a second thread inside is what we look for */
	if (atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed) != 0)
		atomic_fetch_add_explicit(&overlaps, 1, memory_order_relaxed);
	for (int i = 0; i < LINES; i++)
		lines[i].value++;
	atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
}

static void *counter_worker(void *arg)
{
	int iters = *(int *)arg;

	for (int i = 0; i < iters; i++) {
		if (i % 4 == 1) {
			while (pthread_mutex_trylock(&static_lock) == EBUSY)
				sched_yield();
		} else if (i % 16 == 2) {
			struct timespec t;

			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_sec += 30;
			CHECK(pthread_mutex_timedlock(&static_lock, &t));
		} else {
			CHECK(pthread_mutex_lock(&static_lock));
		}
		section();
		CHECK(pthread_mutex_unlock(&static_lock));
		if (i % 8 == 0) { /* nested, fixed order */
			CHECK(pthread_mutex_lock(&dyn_lock));
			CHECK(pthread_mutex_lock(&static_lock));
			nested_a++;
			section();
			CHECK(pthread_mutex_unlock(&static_lock));
			nested_b++;
			CHECK(pthread_mutex_unlock(&dyn_lock));
		}
	}
	return NULL;
}

static void run_counters(int nthreads, int iters)
{
	pthread_t t[64];
	long want = (long)nthreads * (iters + (iters + 7) / 8);

	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_create(&t[i], NULL, counter_worker, &iters));
	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_join(t[i], NULL));
	for (int i = 0; i < LINES; i++)
		if (lines[i].value != want)
			FAIL("counter line %d = %ld, want %ld", i,
			     lines[i].value, want);
	if (atomic_load(&overlaps) != 0)
		FAIL("%d overlapping critical sections",
		     atomic_load(&overlaps));
	if (nested_a != nested_b ||
	    nested_a != (long)nthreads * ((iters + 7) / 8))
		FAIL("nested counts %ld/%ld", nested_a, nested_b);
	memset(lines, 0, sizeof(lines));
	nested_a = nested_b = 0;
}

/* Bounded buffer: producers and consumers on two condvars. */
#define QCAP 4
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty;
static int queue[QCAP], qhead, qlen;
static long consumed_sum;

static void *producer(void *arg)
{
	int n = *(int *)arg;

	for (int i = 1; i <= n; i++) {
		CHECK(pthread_mutex_lock(&qlock));
		while (qlen == QCAP)
			CHECK(pthread_cond_wait(&not_full, &qlock));
		queue[(qhead + qlen++) % QCAP] = i;
		CHECK(pthread_cond_signal(&not_empty));
		CHECK(pthread_mutex_unlock(&qlock));
	}
	return NULL;
}

static void *consumer(void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < n; i++) {
		CHECK(pthread_mutex_lock(&qlock));
		while (qlen == 0)
			CHECK(pthread_cond_wait(&not_empty, &qlock));
		consumed_sum += queue[qhead];
		qhead = (qhead + 1) % QCAP;
		qlen--;
		CHECK(pthread_cond_signal(&not_full));
		CHECK(pthread_mutex_unlock(&qlock));
	}
	return NULL;
}

static void run_queue(int pairs, int items)
{
	pthread_t p[8], c[8];

	CHECK(pthread_cond_init(&not_empty, NULL));
	for (int i = 0; i < pairs; i++) {
		CHECK(pthread_create(&p[i], NULL, producer, &items));
		CHECK(pthread_create(&c[i], NULL, consumer, &items));
	}
	for (int i = 0; i < pairs; i++) {
		CHECK(pthread_join(p[i], NULL));
		CHECK(pthread_join(c[i], NULL));
	}
	if (consumed_sum != (long)pairs * items * (items + 1) / 2 || qlen != 0)
		FAIL("queue: sum %ld, %d left", consumed_sum, qlen);
	CHECK(pthread_cond_destroy(&not_empty));
}

/* Broadcast: everyone waits for a generation bump. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int generation, arrived;

static void *gate_worker(void *arg)
{
	int rounds = *(int *)arg, nthreads = ((int *)arg)[1];

	for (int r = 0; r < rounds; r++) {
		CHECK(pthread_mutex_lock(&gate_lock));
		int g = generation;

		if (++arrived == nthreads) {
			arrived = 0;
			generation++;
			CHECK(pthread_cond_broadcast(&gate_cond));
		} else {
			while (generation == g)
				CHECK(pthread_cond_wait(&gate_cond,
							&gate_lock));
		}
		CHECK(pthread_mutex_unlock(&gate_lock));
	}
	return NULL;
}

static void run_gate(int nthreads, int rounds)
{
	pthread_t t[16];
	int args[2] = {rounds, nthreads};

	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_create(&t[i], NULL, gate_worker, args));
	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_join(t[i], NULL));
	if (generation != rounds)
		FAIL("barrier: %d generations, want %d", generation, rounds);
}

static void run_timed_wait(void)
{
	struct timespec t;

	CHECK(pthread_mutex_lock(&gate_lock));
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += 20 * 1000 * 1000;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	EXPECT(pthread_cond_timedwait(&gate_cond, &gate_lock, &t), ETIMEDOUT);
	CHECK(pthread_mutex_unlock(&gate_lock));
}

static void stress(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = ncpu > 0 && ncpu * 3 < 16 ? (int)ncpu * 3 : 16;

	CHECK(pthread_mutex_init(&dyn_lock, NULL));
	run_counters(nthreads, 300 * scale); /* oversubscribed */
	run_counters(2, 2000 * scale);
	run_queue(2, 500 * scale);
	run_gate(nthreads, 20 * scale);
	run_timed_wait();
	CHECK(pthread_mutex_destroy(&dyn_lock));
}

/* Uncontended lock/unlock pairs on @m: best of five runs, ns per pair. */
static double pairs_ns(pthread_mutex_t *m)
{
	double best = 1e9;
	const int n = 2000000;

	for (int r = 0; r < 5; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < n; i++) {
			pthread_mutex_lock(m);
			pthread_mutex_unlock(m);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((b.tv_sec - a.tv_sec) * 1e9 +
			     (b.tv_nsec - a.tv_nsec)) /
			    n;

		if (ns < best)
			best = ns;
	}
	return best;
}

static void *no_op(void *arg)
{
	return arg;
}

/* ns per uncontended pair (what the interposer adds shows against a
 * direct run), twice: while the process has one thread, where glibc
 * (2.32+, __libc_single_threaded) skips its atomic instructions, and
 * once a second thread has existed, where it never skips them again:
 * the state of any program whose mutexes matter. */
static void overhead(void)
{
	pthread_mutex_t m;
	pthread_t t;
	double single, multi;

	CHECK(pthread_mutex_init(&m, NULL));
	single = pairs_ns(&m);
	CHECK(pthread_create(&t, NULL, no_op, NULL));
	CHECK(pthread_join(t, NULL));
	multi = pairs_ns(&m);
	CHECK(pthread_mutex_destroy(&m));
	printf("%.1f ns per uncontended lock/unlock pair, single-threaded "
	       "process\n",
	       single);
	printf("%.1f ns per uncontended lock/unlock pair, multi-threaded "
	       "process\n",
	       multi);
}

int main(int argc, char **argv)
{
	const char *s = getenv("PT_SCALE");

	if (s && atoi(s) > 0)
		scale = atoi(s);
	if (argc != 2)
		FAIL("usage: pt_work stress|types|threads|wrappers|overhead");
	if (strcmp(argv[1], "stress") == 0)
		stress();
	else if (strcmp(argv[1], "types") == 0)
		types();
	else if (strcmp(argv[1], "threads") == 0)
		threads();
	else if (strcmp(argv[1], "wrappers") == 0)
		wrappers();
	else if (strcmp(argv[1], "overhead") == 0)
		overhead();
	else
		FAIL("unknown mode '%s'", argv[1]);
	return 0;
}
