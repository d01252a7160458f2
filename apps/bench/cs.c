/* SPDX-License-Identifier: MIT */
/*
 * The thesis microbenchmark (§8.1): T client threads each run N critical
 * sections of one lock; a section reads and writes L shared cache lines
 * that are neither adjacent (prefetchers fetch pairs) nor predictable (the
 * address of the next line is read from the current one), then the
 * thread waits D cycles.  Cycles per section = elapsed cycles / sections,
 * waiting and delay included, as in the thesis and the anchors.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 64
struct run {
	const struct cs_params *p;
	liblock_lock_t lock;
	/* --lock pthread: sections between pthread_mutex_lock/unlock, for
	 * rcl-run to replace (docs/RCL-RUN.md) */
	bool pthread;
	pthread_mutex_t mutex;
	struct bench_line *head; /* the shared lines */
	char *block;
	pthread_barrier_t start;
	_Atomic int stop;  /* set once max_seconds passed */
	uint64_t t0;	   /* TSC at the start barrier */
	uint64_t deadline; /* TSC after which threads stop */
	int cpus[1024];
	int ncpus;
};

struct client {
	struct run *run;
	int index;
	long done;
	uint64_t end;
	long long misses;
	int counter;
} __attribute__((aligned(128)));

static void *section(void *arg)
{
	struct bench_line *l = arg;
	struct bench_line *last = l;

	/* pointer chase: each line names the next */
	for (; l; l = l->next) {
		l->count++;
		last = l;
	}
	return last;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct run *run = c->run;
	const struct cs_params *p = run->p;

	if (p->pin && run->ncpus > 0)
		bench_pin(run->cpus[c->index % run->ncpus]);
	c->counter = bench_counters_start();
	pthread_barrier_wait(&run->start);
	for (long i = 0; i < p->iterations; i++) {
		if (run->pthread) {
			pthread_mutex_lock(&run->mutex);
			section(run->head);
			pthread_mutex_unlock(&run->mutex);
		} else {
			liblock_exec(&run->lock, section, run->head);
		}
		c->done++;
		if (p->delay)
			bench_delay(p->delay);
		/* relaxed: a late stop costs one more section, nothing else */
		if (run->deadline && (i & 15) == 0 &&
		    (atomic_load_explicit(&run->stop, memory_order_relaxed) ||
		     bench_tsc() > run->deadline)) {
			atomic_store_explicit(&run->stop, 1,
					      memory_order_relaxed);
			break;
		}
	}
	c->end = bench_tsc();
	c->misses = bench_counters_stop(c->counter);
	return NULL;
}

/* The server CPU a delegation lock will use: --server, else the first of
 * $RCL_SERVERS, else the last CPU we may run on (the runtime's default). */
static int server_cpu(const struct cs_params *p, const int *cpus, int n)
{
	const char *env = getenv("RCL_SERVERS");

	if (p->server >= 0)
		return p->server;
	if (env && *env)
		return atoi(env);
	return n > 0 ? cpus[n - 1] : 0;
}

static int run_setup(struct run *run, const struct cs_params *p)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	liblock_algorithm_info_t info;
	int all[1024], n, server = -1, rc;

	if (strcmp(p->algorithm, "pthread") == 0) {
		const char *under = getenv("LIBLOCK_LOCK");

		/* under rcl-run --lock rcl the mutex's server takes a CPU:
		 * keep the clients off it, as for a delegation lock */
		n = bench_cpus(all, 1024);
		if (under && liblock_algorithm_info(under, &info) == 0 &&
		    (info.caps & LIBLOCK_CAP_SERVER))
			server = server_cpu(p, all, n);
		for (int i = 0; i < n; i++)
			if (all[i] != server || n == 1)
				run->cpus[run->ncpus++] = all[i];
		run->pthread = true;
		if ((rc = pthread_mutex_init(&run->mutex, NULL)) != 0)
			return rc;
		if ((rc = bench_lines_new(p->lines, &run->head, &run->block)) !=
		    0)
			pthread_mutex_destroy(&run->mutex);
		return rc;
	}
	if (liblock_algorithm_info(p->algorithm, &info) != 0) {
		fprintf(stderr,
			"rcl-bench: unknown algorithm '%s' (see rcl-bench "
			"--list)\n",
			p->algorithm);
		return EINVAL;
	}
	n = bench_cpus(all, 1024);
	if (info.caps & LIBLOCK_CAP_SERVER)
		server = server_cpu(p, all, n);
	for (int i = 0; i < n; i++)
		if (all[i] != server || n == 1)
			run->cpus[run->ncpus++] = all[i];
	attr.algorithm = p->algorithm;
	attr.flags = LIBLOCK_ATTR_FIXED;
	attr.server = server;
	if ((rc = liblock_init(&run->lock, &attr)) != 0) {
		fprintf(stderr,
			"rcl-bench: cannot initialise a '%s' lock: %s\n",
			p->algorithm, strerror(rc));
		return rc;
	}
	if ((rc = bench_lines_new(p->lines, &run->head, &run->block)) != 0)
		liblock_destroy(&run->lock);
	return rc;
}

static void collect(struct run *run, struct client *c, struct cs_result *r)
{
	const struct cs_params *p = run->p;
	uint64_t end = run->t0;
	long long misses = 0;

	r->sections = 0;
	for (int i = 0; i < p->threads; i++) {
		r->sections += c[i].done;
		misses += c[i].misses;
		if (c[i].end > end)
			end = c[i].end;
	}
	r->cycles_per_cs =
		r->sections ? (double)(end - run->t0) / r->sections : 0;
	r->seconds = (double)(end - run->t0) / bench_tsc_hz();
	r->throughput = r->seconds > 0 ? r->sections / r->seconds : 0;
	r->misses_per_cs = -1;
	if (bench_counters_available(&r->misses_why) && r->sections)
		r->misses_per_cs = (double)misses / r->sections;
	r->ok = bench_lines_check(run->head, r->sections);
}

int cs_run(const struct cs_params *p, struct cs_result *r)
{
	struct run *run = calloc(1, sizeof(*run));
	struct client *c = NULL;
	pthread_t *t = NULL;
	int rc, started = 0;

	if (!run)
		return ENOMEM;
	run->p = p;
	if ((rc = run_setup(run, p)) != 0) {
		free(run);
		return rc;
	}
	c = aligned_alloc(128, sizeof(*c) * (size_t)p->threads);
	t = calloc((size_t)p->threads, sizeof(*t));
	rc = c && t ? pthread_barrier_init(&run->start, NULL,
					   (unsigned)p->threads + 1)
		    : ENOMEM;
	if (rc == 0) {
		memset(c, 0, sizeof(*c) * (size_t)p->threads);
		for (; started < p->threads; started++) {
			c[started].run = run;
			c[started].index = started;
			if ((rc = pthread_create(&t[started], NULL, client_main,
						 &c[started])) != 0)
				break;
		}
	}
	if (rc == 0) {
		/* the first call measures the TSC for 50 ms: not in the run */
		double hz = bench_tsc_hz();

		run->t0 = bench_tsc();
		if (p->max_seconds > 0)
			run->deadline =
				run->t0 + (uint64_t)(p->max_seconds * hz);
		pthread_barrier_wait(&run->start); /* publishes t0, deadline */
		for (int i = 0; i < started; i++)
			pthread_join(t[i], NULL);
		collect(run, c, r);
		pthread_barrier_destroy(&run->start);
	} else {
		fprintf(stderr, "rcl-bench: cannot start %d threads: %s\n",
			p->threads, strerror(rc));
		if (started) /* threads blocked on the barrier: cannot recover
			      */
			exit(1);
	}
	if (run->pthread)
		pthread_mutex_destroy(&run->mutex);
	else
		liblock_destroy(&run->lock);
	free(run->block);
	free(c);
	free(t);
	free(run);
	return rc;
}

void cs_params_default(struct cs_params *p)
{
	p->algorithm = "posix";
	p->threads = 2;
	p->lines = 1;
	p->delay = 0;
	p->iterations = 100000;
	p->max_seconds = 5;
	p->server = -1;
	p->pin = true;
}

/* ---- rcl-bench cs ---- */

static const char cs_usage[] =
	"usage: rcl-bench cs [--lock ALGO] [--threads T] [--lines L] [--delay "
	"D]\n"
	"                    [--iterations N] [--max-seconds S] [--server "
	"CPU]\n"
	"                    [--no-pin] [--json]\n"
	"Runs T client threads, each executing N critical sections of one "
	"lock;\n"
	"each section reads and writes L shared, non-adjacent, pointer-chased\n"
	"cache lines, and each thread waits D cycles between sections.  "
	"Prints\n"
	"cycles per critical section (TSC; waiting and delay included),\n"
	"throughput, cache misses per section when the machine has counters, "
	"and\n"
	"whether the shared data adds up (exit 1 if not).\n"
	"--lock pthread: each section between pthread_mutex_lock and unlock "
	"on one\n"
	"pthread_mutex_t, to run under rcl-run (rcl-run --lock rcl -- "
	"rcl-bench cs\n"
	"--lock pthread ...: contended sections shipped to the server).\n";

void cs_print(const struct cs_params *p, const struct cs_result *r, bool json)
{
	if (json) {
		printf("{\"algorithm\": ");
		bench_json_str(stdout, p->algorithm);
		printf(", \"threads\": %d, \"lines\": %d, \"delay\": %llu, "
		       "\"iterations\": %ld, \"sections\": %ld, "
		       "\"cycles_per_cs\": %.1f, \"seconds\": %.4f, "
		       "\"throughput\": %.1f, \"tsc_hz\": %.0f, ",
		       p->threads, p->lines, (unsigned long long)p->delay,
		       p->iterations, r->sections, r->cycles_per_cs, r->seconds,
		       r->throughput, bench_tsc_hz());
		if (r->misses_per_cs >= 0)
			printf("\"misses_per_cs\": %.2f, ", r->misses_per_cs);
		else {
			printf("\"misses_per_cs\": null, \"misses_note\": ");
			bench_json_str(stdout, r->misses_why);
			printf(", ");
		}
		printf("\"ok\": %s}\n", r->ok ? "true" : "false");
		return;
	}
	printf("algorithm      %s\nthreads        %d\nlines          %d\n"
	       "delay          %llu cycles\nsections       %ld\n"
	       "cycles/CS      %.1f\nthroughput     %.0f CS/s\n",
	       p->algorithm, p->threads, p->lines, (unsigned long long)p->delay,
	       r->sections, r->cycles_per_cs, r->throughput);
	if (r->misses_per_cs >= 0)
		printf("misses/CS      %.2f (client side)\n", r->misses_per_cs);
	else
		printf("misses/CS      %s\n", r->misses_why);
	printf("shared data    %s\n", r->ok ? "ok" : "CORRUPTED");
}

/* Options shared by cs and sweep: returns 1 if @opt was one of them. */
int cs_option(struct cs_params *p, int opt, const char *arg)
{
	switch (opt) {
	case 'l':
		p->algorithm = arg;
		return 1;
	case 't':
		p->threads = (int)bench_parse_long("--threads", arg, 1, 4096);
		return 1;
	case 'L':
		p->lines = (int)bench_parse_long("--lines", arg, 1, MAX_LINES);
		return 1;
	case 'd':
		p->delay =
			(uint64_t)bench_parse_long("--delay", arg, 0, 1L << 40);
		return 1;
	case 'n':
		p->iterations =
			bench_parse_long("--iterations", arg, 1, 1L << 40);
		return 1;
	case 'm':
		p->max_seconds =
			bench_parse_double("--max-seconds", arg, 0, 86400);
		return 1;
	case 's':
		p->server = (int)bench_parse_long("--server", arg, 0, 1 << 20);
		return 1;
	case 'P':
		p->pin = false;
		return 1;
	}
	return 0;
}

int cmd_cs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lock", required_argument, 0, 'l'},
		{"threads", required_argument, 0, 't'},
		{"lines", required_argument, 0, 'L'},
		{"delay", required_argument, 0, 'd'},
		{"iterations", required_argument, 0, 'n'},
		{"max-seconds", required_argument, 0, 'm'},
		{"server", required_argument, 0, 's'},
		{"no-pin", no_argument, 0, 'P'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct cs_params p;
	struct cs_result r;
	bool json = false;
	int opt;

	cs_params_default(&p);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cs_option(&p, opt, optarg))
			continue;
		if (opt == 'j')
			json = true;
		else if (opt == 'h') {
			fputs(cs_usage, stdout);
			return 0;
		} else
			bench_usage_error("cs: bad option");
	}
	if (optind < argc)
		bench_usage_error("cs: unexpected argument '%s'", argv[optind]);
	if (cs_run(&p, &r) != 0)
		return 1;
	cs_print(&p, &r, json);
	return r.ok ? 0 : 1;
}
