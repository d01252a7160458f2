/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench report: the measurements of docs/PERFORMANCE.md, taken in one
 * run so that every ratio compares numbers from the same minutes of the
 * same machine.  Prints Markdown: the physical floor (ping-pong), RCL's
 * remote call against it, then cycles per critical section for every
 * algorithm at 1 and 5 lines, high and low contention, and each thread
 * count, with the ratio to POSIX at the same point.
 */
#include "bench.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#define MAX_ITEMS 64

struct report {
	char *algos[MAX_ITEMS];
	int nalgos;
	int threads[16];
	int nthreads;
	uint64_t high, low;
	double seconds;
};

static double measure(const char *algo, int threads, int lines, uint64_t delay,
		      double seconds, bool *ok)
{
	struct cs_params p;
	struct cs_result r;

	cs_params_default(&p);
	p.algorithm = algo;
	p.threads = threads;
	p.lines = lines;
	p.delay = delay;
	p.iterations = 1L << 40; /* bounded by time */
	p.max_seconds = seconds;
	if (cs_run(&p, &r) != 0)
		exit(1);
	*ok &= r.ok;
	return r.cycles_per_cs;
}

static void header(void)
{
	struct utsname u;
	char model[256] = "unknown CPU";
	FILE *f = fopen("/proc/cpuinfo", "r");
	int cpus[1024], n = bench_cpus(cpus, 1024);
	time_t now = time(NULL);

	if (f) {
		char line[512];

		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "model name", 10) == 0) {
				snprintf(model, sizeof(model), "%s",
					 strchr(line, ':') + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	uname(&u);
	printf("Machine: %s, %d CPUs, TSC %.2f GHz, Linux %s; %s", model, n,
	       bench_tsc_hz() / 1e9, u.release, ctime(&now));
}

static void floor_table(struct report *rep, bool *ok)
{
	int cpus[1024], n = bench_cpus(cpus, 1024);
	double one, two, rcl;

	if (n < 2)
		return;
	one = pingpong_median(cpus[0], cpus[1], 500000, false);
	two = pingpong_median(cpus[0], cpus[1], 500000, true);
	rcl = measure("rcl", 1, 1, 0, rep->seconds, ok);
	printf("\n### The floor: a remote call against a cache line's round "
	       "trip\n\n"
	       "| what | cycles | ratio to one line's round trip "
	       "|\n|---|---:|---:|\n"
	       "| one cache line's round trip, CPU %d <-> %d | %.0f | 1.00 |\n"
	       "| request line + reply line | %.0f | %.2f |\n"
	       "| RCL remote call, 1 client, empty delay, 1 line | %.0f | %.2f "
	       "|\n",
	       cpus[0], cpus[1], one, two, two / one, rcl, rcl / one);
}

static void lock_table(struct report *rep, int lines, uint64_t delay,
		       const char *label, bool *ok)
{
	double posix[16];

	printf("\n### %d line%s, %s contention (delay %llu cycles): cycles per "
	       "critical section (ratio to posix)\n\n| lock |",
	       lines, lines > 1 ? "s" : "", label, (unsigned long long)delay);
	for (int t = 0; t < rep->nthreads; t++)
		printf(" T=%d |", rep->threads[t]);
	printf("\n|---|");
	for (int t = 0; t < rep->nthreads; t++)
		printf("---:|");
	printf("\n");
	for (int t = 0; t < rep->nthreads; t++)
		posix[t] = measure("posix", rep->threads[t], lines, delay,
				   rep->seconds, ok);
	for (int a = 0; a < rep->nalgos; a++) {
		printf("| %s |", rep->algos[a]);
		for (int t = 0; t < rep->nthreads; t++) {
			double c = strcmp(rep->algos[a], "posix") == 0
					   ? posix[t]
					   : measure(rep->algos[a],
						     rep->threads[t], lines,
						     delay, rep->seconds, ok);

			printf(" %.0f (%.2f) |", c, c / posix[t]);
			fflush(stdout);
		}
		printf("\n");
	}
}

static const char report_usage[] =
	"usage: rcl-bench report [--lock A,B,...] [--threads T,...] [--high "
	"D]\n"
	"                        [--low D] [--seconds S]\n"
	"Measures, in one run, the tables of docs/PERFORMANCE.md and prints "
	"them\n"
	"as Markdown: the ping-pong floor and RCL's remote call against it, "
	"then\n"
	"every algorithm (default: all) at 1 and 5 lines, high contention "
	"(delay\n"
	"100) and low contention (delay 100000), for each thread count "
	"(default\n"
	"1,2,4,8,16), with ratios to posix.  S seconds per point (default "
	"0.3).\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lock", required_argument, 0, 'l'},
		{"threads", required_argument, 0, 't'},
		{"high", required_argument, 0, 'H'},
		{"low", required_argument, 0, 'L'},
		{"seconds", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct report rep = {.threads = {1, 2, 4, 8, 16},
			     .nthreads = 5,
			     .high = 100,
			     .low = 100000,
			     .seconds = 0.3};
	const char *const *names = liblock_algorithms();
	char *items[16];
	bool ok = true;
	int opt;

	for (; names[rep.nalgos] && rep.nalgos < MAX_ITEMS; rep.nalgos++)
		rep.algos[rep.nalgos] = (char *)names[rep.nalgos];
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'l')
			rep.nalgos = bench_split(optarg, rep.algos, MAX_ITEMS);
		else if (opt == 't') {
			rep.nthreads = bench_split(optarg, items, 16);
			for (int i = 0; i < rep.nthreads; i++)
				rep.threads[i] = (int)bench_parse_long(
					"--threads", items[i], 1, 4096);
		} else if (opt == 'H')
			rep.high = (uint64_t)bench_parse_long("--high", optarg,
							      0, 1L << 40);
		else if (opt == 'L')
			rep.low = (uint64_t)bench_parse_long("--low", optarg, 0,
							     1L << 40);
		else if (opt == 's')
			rep.seconds = bench_parse_double("--seconds", optarg,
							 0.01, 60);
		else if (opt == 'h') {
			fputs(report_usage, stdout);
			return 0;
		} else
			bench_usage_error("report: bad option");
	}
	for (int a = 0; a < rep.nalgos; a++)
		if (liblock_algorithm_info(rep.algos[a],
					   &(liblock_algorithm_info_t){0}) != 0)
			bench_usage_error("report: unknown algorithm '%s'",
					  rep.algos[a]);
	header();
	floor_table(&rep, &ok);
	for (int lines = 1; lines <= 5; lines += 4) {
		lock_table(&rep, lines, rep.high, "high", &ok);
		lock_table(&rep, lines, rep.low, "low", &ok);
	}
	if (!ok)
		fprintf(stderr, "rcl-bench: report: some run's shared data did "
				"not add up\n");
	return ok ? 0 : 1;
}
