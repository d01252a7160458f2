/* SPDX-License-Identifier: MIT */
/*
 * prof_overhead: the cost of one uncontended lock/unlock pair, for
 * `make prof-overhead` (profiler/prof-overhead.sh, docs/PROFILER.md,
 * "Overhead").  One thread takes and releases a private lock PAIRS times;
 * the figure is the thread's CPU time per pair (CPU time rather than wall
 * time: the build machines are shared), the minimum over REPS runs.
 *
 *   prof_overhead [-n PAIRS] [-r REPS] KIND
 *   KIND: mutex, rdlock, wrlock, spin, or tsc (two time-stamp counter
 *   reads, the profiler's clock, instead of a pair)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t sp;
static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_nsec;
#endif
}

static void run(const char *kind, long n)
{
	if (!strcmp(kind, "mutex")) {
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&mx);
			pthread_mutex_unlock(&mx);
		}
	} else if (!strcmp(kind, "rdlock")) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_rdlock(&rw);
			pthread_rwlock_unlock(&rw);
		}
	} else if (!strcmp(kind, "wrlock")) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_wrlock(&rw);
			pthread_rwlock_unlock(&rw);
		}
	} else if (!strcmp(kind, "spin")) {
		for (long i = 0; i < n; i++) {
			pthread_spin_lock(&sp);
			pthread_spin_unlock(&sp);
		}
	} else {
		uint64_t s = 0;

		for (long i = 0; i < n; i++) {
			uint64_t a = tsc();

			s += tsc() - a;
		}
		sink = s;
	}
}

int main(int argc, char **argv)
{
	long n = 2000000, reps = 5;
	double best = 0;
	int c;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		char *end;
		long v = strtol(optarg, &end, 10);

		if (*end || v < 1) {
			fprintf(stderr,
				"prof_overhead: -%c %s: not a positive "
				"integer\n",
				c, optarg);
			return 2;
		}
		if (c == 'n')
			n = v;
		else
			reps = v;
	}
	if (optind != argc - 1 ||
	    !strstr(" mutex rdlock wrlock spin tsc ", argv[optind]) ||
	    strchr(argv[optind], ' ') || !argv[optind][0]) {
		fprintf(stderr, "usage: prof_overhead [-n PAIRS] [-r REPS] "
				"mutex|rdlock|wrlock|spin|tsc\n");
		return 2;
	}
	pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE);
	run(argv[optind], n / 10); /* warm-up: sites, tables, caches */
	for (long r = 0; r < reps; r++) {
		uint64_t t0 = cpu_ns();
		double ns;

		run(argv[optind], n);
		ns = (double)(cpu_ns() - t0) / (double)n;
		if (r == 0 || ns < best)
			best = ns;
	}
	printf("%s %.2f ns/pair\n", argv[optind], best);
	return 0;
}
