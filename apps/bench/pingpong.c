/* SPDX-License-Identifier: MIT */
/*
 * The physical floor of a remote call: one cache line's round trip between
 * two CPUs (each side waits for the other's store, with pause), and the
 * RCL-like variant where the request and the reply live in two lines.
 * Median of five batches: the host may move vCPUs in the middle of a run.
 */
#include "bench.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ll_wait.h"

struct line {
	_Atomic uint64_t v;
} __attribute__((aligned(128)));

struct pp {
	struct line one;	/* single-line protocol */
	struct line ping, pong; /* two-line protocol */
	long n;
	int cpu;
	bool two_lines;
	pthread_barrier_t go;
};

static void wait_for(_Atomic uint64_t *v, uint64_t want)
{
	/* acquire: pairs with the other side's release store */
	while (atomic_load_explicit(v, memory_order_acquire) != want)
		ll_cpu_relax();
}

static void *responder(void *arg)
{
	struct pp *pp = arg;

	bench_pin(pp->cpu);
	pthread_barrier_wait(&pp->go);
	for (uint64_t i = 1; i <= (uint64_t)pp->n; i++) {
		if (pp->two_lines) {
			wait_for(&pp->ping.v, i);
			atomic_store_explicit(&pp->pong.v, i,
					      memory_order_release);
		} else {
			wait_for(&pp->one.v, 2 * i - 1);
			atomic_store_explicit(&pp->one.v, 2 * i,
					      memory_order_release);
		}
	}
	return NULL;
}

/* Cycles per round trip of one batch of @n. */
static double batch(int a, int b, long n, bool two_lines)
{
	struct pp *pp = aligned_alloc(128, sizeof(*pp));
	pthread_t t;
	uint64_t t0, t1;

	memset(pp, 0, sizeof(*pp));
	pp->n = n;
	pp->cpu = b;
	pp->two_lines = two_lines;
	pthread_barrier_init(&pp->go, NULL, 2);
	bench_pin(a);
	if (pthread_create(&t, NULL, responder, pp) != 0) {
		perror("rcl-bench: pthread_create");
		exit(1);
	}
	pthread_barrier_wait(&pp->go);
	t0 = bench_tsc();
	for (uint64_t i = 1; i <= (uint64_t)n; i++) {
		if (two_lines) {
			atomic_store_explicit(&pp->ping.v, i,
					      memory_order_release);
			wait_for(&pp->pong.v, i);
		} else {
			atomic_store_explicit(&pp->one.v, 2 * i - 1,
					      memory_order_release);
			wait_for(&pp->one.v, 2 * i);
		}
	}
	t1 = bench_tsc();
	pthread_join(t, NULL);
	pthread_barrier_destroy(&pp->go);
	free(pp);
	return (double)(t1 - t0) / (double)n;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double pingpong_median(int a, int b, long n, bool two_lines)
{
	double v[5];

	for (int i = 0; i < 5; i++)
		v[i] = batch(a, b, n / 5 > 0 ? n / 5 : 1, two_lines);
	qsort(v, 5, sizeof(v[0]), cmp_double);
	return v[2];
}

static const char pp_usage[] =
	"usage: rcl-bench pingpong [--cpus A,B] [--iterations N] [--json]\n"
	"Measures the round trip of one cache line between CPUs A and B "
	"(default:\n"
	"the first two CPUs), and of a request line plus a reply line (what an "
	"RCL\n"
	"call must move at least).  Median of five batches, in TSC cycles.\n";

int cmd_pingpong(int argc, char **argv)
{
	static const struct option opts[] = {
		{"cpus", required_argument, 0, 'c'},
		{"iterations", required_argument, 0, 'n'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int cpus[1024], ncpus = bench_cpus(cpus, 1024), a, b, opt;
	long n = 500000;
	bool json = false;
	double one, two, hz = bench_tsc_hz();

	if (ncpus < 2) {
		fprintf(stderr,
			"rcl-bench: pingpong needs two CPUs, this process may "
			"use %d\n",
			ncpus);
		return 1;
	}
	a = cpus[0];
	b = cpus[1];
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'c') {
			char *items[2], *copy = strdup(optarg);

			if (bench_split(copy, items, 2) != 2)
				bench_usage_error("--cpus wants A,B, got '%s'",
						  optarg);
			a = (int)bench_parse_long("--cpus", items[0], 0,
						  1 << 20);
			b = (int)bench_parse_long("--cpus", items[1], 0,
						  1 << 20);
			free(copy);
			if (a == b)
				bench_usage_error(
					"--cpus: A and B must differ");
		} else if (opt == 'n')
			n = bench_parse_long("--iterations", optarg, 5,
					     1L << 34);
		else if (opt == 'j')
			json = true;
		else if (opt == 'h') {
			fputs(pp_usage, stdout);
			return 0;
		} else
			bench_usage_error("pingpong: bad option");
	}
	one = pingpong_median(a, b, n, false);
	two = pingpong_median(a, b, n, true);
	if (json)
		printf("{\"cpus\": [%d, %d], \"round_trips\": %ld, "
		       "\"cycles_per_round_trip\": %.1f, "
		       "\"cycles_per_round_trip_two_lines\": %.1f, "
		       "\"ns_per_round_trip\": %.1f, \"tsc_hz\": %.0f}\n",
		       a, b, n, one, two, one / hz * 1e9, hz);
	else
		printf("CPUs %d <-> %d, %ld round trips (median of 5 batches)\n"
		       "one line        %8.1f cycles (%.1f ns)\n"
		       "request + reply %8.1f cycles (%.1f ns)\n",
		       a, b, n, one, one / hz * 1e9, two, two / hz * 1e9);
	return 0;
}
