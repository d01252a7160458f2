/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench misses: the profiler-validation benchmark (thesis §4.3).
 * W workers take turns: worker i waits (outside any lock) for its turn,
 * then runs a section under a plain pthread mutex that writes the same n
 * pointer-chased, non-adjacent lines, then passes the turn on.  No worker
 * runs two sections back to back, so every line a section touches was last
 * written on another CPU: exactly n cache misses per section, which a
 * profiler run on this program (rcl-prof -- rcl-bench misses ...) should
 * report.  Uses pthread directly, not liblock, so the profiler sees it.
 */
#include "bench.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ll_wait.h"

static struct {
	pthread_mutex_t mutex;
	struct bench_line *head;
	_Atomic int turn __attribute__((aligned(128)));
	int workers;
	long rounds;
	int cpus[1024];
	int ncpus;
	long long misses;
} g = {.mutex = PTHREAD_MUTEX_INITIALIZER};

struct worker {
	int id;
	long long misses;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int handle;

	if (g.ncpus)
		bench_pin(g.cpus[w->id % g.ncpus]);
	handle = bench_counters_start();
	for (long r = 0; r < g.rounds; r++) {
		/* acquire: pairs with the release that handed us the turn */
		while (atomic_load_explicit(&g.turn, memory_order_acquire) !=
		       w->id)
			ll_cpu_relax();
		pthread_mutex_lock(&g.mutex);
		for (struct bench_line *l = g.head; l; l = l->next)
			l->count++;
		pthread_mutex_unlock(&g.mutex);
		/* release: our section's writes before the next worker's turn
		 */
		atomic_store_explicit(&g.turn, (w->id + 1) % g.workers,
				      memory_order_release);
	}
	w->misses = bench_counters_stop(handle);
	return NULL;
}

static const char misses_usage[] =
	"usage: rcl-bench misses [--lines N] [--workers W] [--rounds R] "
	"[--json]\n"
	"Profiler validation: W workers (default: one per CPU, at least 2) "
	"take\n"
	"turns running sections under one pthread mutex; each section writes "
	"the\n"
	"same N lines (default 5) last written by another worker, so it takes\n"
	"exactly N cache misses.  Run it under rcl-prof to check the "
	"misses/CS\n"
	"column.\n";

int cmd_misses(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lines", required_argument, 0, 'L'},
		{"workers", required_argument, 0, 'w'},
		{"rounds", required_argument, 0, 'r'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int lines = 5, opt;
	bool json = false, ok;
	char *block;
	struct worker *w;
	pthread_t *t;
	uint64_t t0, t1;
	long sections;
	const char *why;

	g.ncpus = bench_cpus(g.cpus, 1024);
	g.workers = g.ncpus > 2 ? g.ncpus : 2;
	g.rounds = 20000;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'L')
			lines = (int)bench_parse_long("--lines", optarg, 1,
						      256);
		else if (opt == 'w')
			g.workers = (int)bench_parse_long("--workers", optarg,
							  2, 1024);
		else if (opt == 'r')
			g.rounds = bench_parse_long("--rounds", optarg, 1,
						    1L << 32);
		else if (opt == 'j')
			json = true;
		else if (opt == 'h') {
			fputs(misses_usage, stdout);
			return 0;
		} else
			bench_usage_error("misses: bad option");
	}
	if (bench_lines_new(lines, &g.head, &block) != 0)
		block = NULL;
	w = calloc((size_t)g.workers, sizeof(*w));
	t = calloc((size_t)g.workers, sizeof(*t));
	if (!block || !w || !t) {
		fputs("rcl-bench: out of memory\n", stderr);
		return 1;
	}
	t0 = bench_tsc();
	for (int i = 0; i < g.workers; i++) {
		w[i].id = i;
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0) {
			fputs("rcl-bench: cannot create a worker thread\n",
			      stderr);
			return 1;
		}
	}
	for (int i = 0; i < g.workers; i++) {
		pthread_join(t[i], NULL);
		g.misses += w[i].misses;
	}
	t1 = bench_tsc();
	sections = g.rounds * g.workers;
	ok = bench_lines_check(g.head, sections);
	if (json) {
		printf("{\"workers\": %d, \"lines\": %d, \"sections\": %ld, "
		       "\"expected_misses_per_cs\": %d, \"cycles_per_cs\": "
		       "%.1f, ",
		       g.workers, lines, sections, lines,
		       (double)(t1 - t0) / sections);
		if (bench_counters_available(&why))
			printf("\"misses_per_cs\": %.2f, ",
			       (double)g.misses / sections);
		else {
			printf("\"misses_per_cs\": null, \"misses_note\": ");
			bench_json_str(stdout, why);
			printf(", ");
		}
		printf("\"ok\": %s}\n", ok ? "true" : "false");
	} else {
		printf("workers %d, %d lines, %ld sections, %.1f cycles per "
		       "section\n",
		       g.workers, lines, sections,
		       (double)(t1 - t0) / sections);
		printf("expected misses per section: %d; measured: ", lines);
		if (bench_counters_available(&why))
			printf("%.2f (all misses of the workers, spin "
			       "included)\n",
			       (double)g.misses / sections);
		else
			printf("%s\n", why);
		printf("shared data %s\n", ok ? "ok" : "CORRUPTED");
	}
	free(block);
	free(w);
	free(t);
	return ok ? 0 : 1;
}
