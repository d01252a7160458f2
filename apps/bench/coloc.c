/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench coloc: frequent-request contention, and what co-location does
 * to it (FFlocker: bind the threads that share a lock to one core, so the
 * lock and its data stop travelling between cores).
 *
 * K locks, each guarding its own chain of L shared lines; T threads, thread
 * i's home lock is i mod K; a thread takes its home lock for HOME percent
 * of its sections and a random other lock otherwise.  Each round runs the
 * same workload three ways, for S seconds each, interleaved:
 *   unpinned   the scheduler places the threads (no co-location);
 *   mixed      pinned so that every CPU has threads of every lock;
 *   colocated  pinned so that the threads of one home lock share a CPU
 *              (lock k's threads on CPU k mod N) -- what
 *              rcl-run --colocate applies to an unmodified program.
 * Prints the median sections per second of each and the ratios to
 * unpinned.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LOCKS 64
#define MAX_THREADS 1024
#define MAX_ROUNDS 15

enum placement { UNPINNED, MIXED, COLOCATED, NPLACEMENTS };
static const char *const placement_names[] = {"unpinned", "mixed", "colocated"};

struct coloc_params {
	const char *algorithm;
	int threads, locks, lines, home, rounds;
	uint64_t delay;
	double seconds;
};

struct shared_lock {
	liblock_lock_t lock;
	struct bench_line *head;
	char *block;
	_Atomic long sections; /* taken on this lock, summed at the end */
} __attribute__((aligned(128)));

struct worker {
	const struct coloc_params *p;
	struct shared_lock *locks;
	pthread_barrier_t *start;
	_Atomic int *stop;
	int index, cpu; /* cpu -1: unpinned */
	long done;
} __attribute__((aligned(128)));

static void *section(void *arg)
{
	for (struct bench_line *l = arg; l; l = l->next)
		l->count++;
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct coloc_params *p = w->p;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->index + 1);
	int home = w->index % p->locks;
	long counts[MAX_LOCKS] = {0};

	if (w->cpu >= 0)
		bench_pin(w->cpu);
	pthread_barrier_wait(w->start);
	/* relaxed: a late stop costs one more section, nothing else */
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		int k = home;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (p->locks > 1 && (int)(x % 100) >= p->home)
			k = (home + 1 +
			     (int)((x >> 8) % (uint64_t)(p->locks - 1))) %
			    p->locks;
		liblock_exec(&w->locks[k].lock, section, w->locks[k].head);
		counts[k]++;
		w->done++;
		if (p->delay)
			bench_delay(p->delay);
	}
	for (int k = 0; k < p->locks; k++)
		atomic_fetch_add_explicit(&w->locks[k].sections, counts[k],
					  memory_order_relaxed);
	return NULL;
}

/* One run with placement @pl; sections per second, or -1. */
static double run_once(const struct coloc_params *p, enum placement pl,
		       const int *cpus, int ncpus, bool *ok)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	struct shared_lock *locks;
	struct worker *w;
	pthread_t *t;
	pthread_barrier_t start;
	_Atomic int stop = 0;
	struct timespec a, b;
	double secs, total = 0;
	int rc, made = 0, inited = 0;

	locks = aligned_alloc(128, sizeof(*locks) * (size_t)p->locks);
	w = aligned_alloc(128, sizeof(*w) * (size_t)p->threads);
	t = calloc((size_t)p->threads, sizeof(*t));
	if (!locks || !w || !t) {
		free(locks);
		free(w);
		free(t);
		fprintf(stderr, "rcl-bench: coloc: out of memory\n");
		return -1;
	}
	memset(locks, 0, sizeof(*locks) * (size_t)p->locks);
	attr.algorithm = p->algorithm;
	for (; inited < p->locks; inited++) {
		if ((rc = liblock_init(&locks[inited].lock, &attr)) != 0 ||
		    (rc = bench_lines_new(p->lines, &locks[inited].head,
					  &locks[inited].block)) != 0) {
			if (rc == 0)
				liblock_destroy(&locks[inited].lock);
			fprintf(stderr, "rcl-bench: coloc: lock %s: %s\n",
				p->algorithm, strerror(rc));
			total = -1;
			goto out;
		}
	}
	pthread_barrier_init(&start, NULL, (unsigned)p->threads + 1);
	for (; made < p->threads; made++) {
		int i = made, cpu = -1;

		if (pl == MIXED) /* consecutive threads have different homes */
			cpu = cpus[(i / p->locks) % ncpus];
		else if (pl == COLOCATED)
			cpu = cpus[(i % p->locks) % ncpus];
		w[i] = (struct worker){.p = p,
				       .locks = locks,
				       .start = &start,
				       .stop = &stop,
				       .index = i,
				       .cpu = cpu};
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0) {
			fprintf(stderr, "rcl-bench: coloc: cannot create "
					"threads\n");
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	clock_gettime(CLOCK_MONOTONIC, &a);
	usleep((useconds_t)(p->seconds * 1e6));
	atomic_store_explicit(&stop, 1, memory_order_relaxed);
	for (int i = 0; i < made; i++) {
		pthread_join(t[i], NULL);
		total += (double)w[i].done;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_barrier_destroy(&start);
	secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	for (int k = 0; k < p->locks; k++)
		*ok &= bench_lines_check(locks[k].head,
					 atomic_load(&locks[k].sections));
	total /= secs;
out:
	for (int k = 0; k < inited; k++) {
		liblock_destroy(&locks[k].lock);
		free(locks[k].block);
	}
	free(locks);
	free(w);
	free(t);
	return total;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rcl-bench coloc [--lock ALGO] [--threads T] [--locks "
		"K] "
		"[--home PCT]\n"
		"                       [--lines L] [--delay D] [--seconds S] "
		"[--rounds R] [--json]\n"
		"Frequent-request contention: K locks, T threads; thread i "
		"takes lock i mod K\n"
		"for PCT%% of its sections, a random other lock otherwise.  "
		"Each round runs\n"
		"unpinned (no co-location), mixed (every CPU has threads of "
		"every lock) and\n"
		"colocated (the threads of one lock share a CPU, as rcl-run "
		"--colocate pins\n"
		"them), S seconds each; prints median sections per second "
		"and ratios to\n"
		"unpinned.  Defaults: posix, T=8, K=2, PCT=90, L=2, D=200, "
		"S=0.3, R=3.\n");
}

int cmd_coloc(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lock", required_argument, NULL, 'a'},
		{"threads", required_argument, NULL, 't'},
		{"locks", required_argument, NULL, 'k'},
		{"home", required_argument, NULL, 'H'},
		{"lines", required_argument, NULL, 'l'},
		{"delay", required_argument, NULL, 'd'},
		{"seconds", required_argument, NULL, 's'},
		{"rounds", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct coloc_params p = {.algorithm = "posix",
				 .threads = 8,
				 .locks = 2,
				 .lines = 2,
				 .home = 90,
				 .rounds = 3,
				 .delay = 200,
				 .seconds = 0.3};
	liblock_algorithm_info_t info;
	double v[NPLACEMENTS][MAX_ROUNDS], med[NPLACEMENTS];
	int cpus[1024], ncpus, opt;
	bool json = false, ok = true;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			p.algorithm = optarg;
			break;
		case 't':
			p.threads = (int)bench_parse_long("--threads", optarg,
							  1, MAX_THREADS);
			break;
		case 'k':
			p.locks = (int)bench_parse_long("--locks", optarg, 1,
							MAX_LOCKS);
			break;
		case 'H':
			p.home =
				(int)bench_parse_long("--home", optarg, 0, 100);
			break;
		case 'l':
			p.lines =
				(int)bench_parse_long("--lines", optarg, 1, 64);
			break;
		case 'd':
			p.delay = (uint64_t)bench_parse_long("--delay", optarg,
							     0, 100000000);
			break;
		case 's':
			p.seconds = bench_parse_double("--seconds", optarg,
						       0.01, 60);
			break;
		case 'r':
			p.rounds = (int)bench_parse_long("--rounds", optarg, 1,
							 MAX_ROUNDS);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bench_usage_error("coloc: bad option (see rcl-bench "
					  "coloc --help)");
		}
	}
	if (optind < argc)
		bench_usage_error("coloc: unexpected argument '%s'",
				  argv[optind]);
	if (liblock_algorithm_info(p.algorithm, &info) != 0)
		bench_usage_error("coloc: unknown algorithm '%s' (see "
				  "rcl-bench --list)",
				  p.algorithm);
	if (info.caps & LIBLOCK_CAP_SERVER)
		bench_usage_error("coloc: '%s' runs sections on a server "
				  "CPU: co-location is about where the "
				  "threads run, use a lock that runs them "
				  "in place",
				  p.algorithm);
	p.algorithm = info.name;
	ncpus = bench_cpus(cpus, 1024);
	for (int r = 0; r < p.rounds; r++)
		for (int pl = 0; pl < NPLACEMENTS; pl++)
			if ((v[pl][r] = run_once(&p, (enum placement)pl, cpus,
						 ncpus, &ok)) < 0)
				return 1;
	for (int pl = 0; pl < NPLACEMENTS; pl++) {
		qsort(v[pl], (size_t)p.rounds, sizeof(double), cmp_double);
		med[pl] = p.rounds % 2 ? v[pl][p.rounds / 2]
				       : (v[pl][p.rounds / 2 - 1] +
					  v[pl][p.rounds / 2]) /
						 2;
	}
	if (json) {
		printf("{\"algorithm\": ");
		bench_json_str(stdout, p.algorithm);
		printf(", \"threads\": %d, \"locks\": %d, \"home\": %d, "
		       "\"lines\": %d, \"delay\": %llu, \"cpus\": %d, "
		       "\"rounds\": %d",
		       p.threads, p.locks, p.home, p.lines,
		       (unsigned long long)p.delay, ncpus, p.rounds);
		for (int pl = 0; pl < NPLACEMENTS; pl++)
			printf(", \"%s_per_s\": %.0f", placement_names[pl],
			       med[pl]);
		printf(", \"colocated_vs_unpinned\": %.3f, \"ok\": %s}\n",
		       med[COLOCATED] / med[UNPINNED], ok ? "true" : "false");
	} else {
		printf("%s, %d threads, %d locks, %d%% on the home lock, "
		       "%d lines, delay %llu, %d CPUs, median of %d\n",
		       p.algorithm, p.threads, p.locks, p.home, p.lines,
		       (unsigned long long)p.delay, ncpus, p.rounds);
		printf("%-10s %14s %12s\n", "placement", "sections/s",
		       "/unpinned");
		for (int pl = 0; pl < NPLACEMENTS; pl++)
			printf("%-10s %14.0f %11.2fx\n", placement_names[pl],
			       med[pl], med[pl] / med[UNPINNED]);
		if (!ok)
			printf("shared data does not add up\n");
	}
	return ok ? 0 : 1;
}
