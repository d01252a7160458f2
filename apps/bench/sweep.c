/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench sweep: the thesis's figure.  Delays on a log scale x
 * algorithms x thread counts, each point one microbenchmark run; CSV or
 * JSON on stdout, a progress bar on stderr, and --plot draws cycles per
 * section against delay (log-log, one curve per algorithm, one panel per
 * thread count) with gnuplot.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ITEMS 64

struct point {
	struct cs_params p;
	struct cs_result r;
};

struct sweep {
	char *algos[MAX_ITEMS];
	int nalgos;
	int threads[MAX_ITEMS];
	int nthreads;
	uint64_t delays[MAX_ITEMS];
	int ndelays;
	struct cs_params base;
	struct point *points;
	int npoints;
};

static const uint64_t default_delays[] = {
	100, 316, 1000, 3162, 10000, 31623, 100000, 316228, 1000000,
};

static void progress(int done, int total, const struct cs_params *p)
{
	int width = 30, fill = total ? done * width / total : width;

	fprintf(stderr, "\r[%.*s%*s] %3d/%d %-10s T=%-3d D=%-8llu", fill,
		"##############################", width - fill, "", done, total,
		p ? p->algorithm : "done", p ? p->threads : 0,
		p ? (unsigned long long)p->delay : 0ull);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

static void print_csv(FILE *f, const struct sweep *s)
{
	fprintf(f, "algorithm,threads,lines,delay,cycles_per_cs,throughput,"
		   "misses_per_cs,ok\n");
	for (int i = 0; i < s->npoints; i++) {
		const struct point *pt = &s->points[i];

		fprintf(f, "%s,%d,%d,%llu,%.1f,%.1f,", pt->p.algorithm,
			pt->p.threads, pt->p.lines,
			(unsigned long long)pt->p.delay, pt->r.cycles_per_cs,
			pt->r.throughput);
		if (pt->r.misses_per_cs >= 0)
			fprintf(f, "%.2f", pt->r.misses_per_cs);
		fprintf(f, ",%s\n", pt->r.ok ? "true" : "false");
	}
}

static void print_json(const struct sweep *s)
{
	printf("{\"lines\": %d, \"tsc_hz\": %.0f, \"results\": [\n",
	       s->base.lines, bench_tsc_hz());
	for (int i = 0; i < s->npoints; i++) {
		const struct point *pt = &s->points[i];

		printf("  {\"algorithm\": ");
		bench_json_str(stdout, pt->p.algorithm);
		printf(", \"threads\": %d, \"lines\": %d, \"delay\": %llu, "
		       "\"cycles_per_cs\": %.1f, \"throughput\": %.1f, "
		       "\"misses_per_cs\": ",
		       pt->p.threads, pt->p.lines,
		       (unsigned long long)pt->p.delay, pt->r.cycles_per_cs,
		       pt->r.throughput);
		if (pt->r.misses_per_cs >= 0)
			printf("%.2f", pt->r.misses_per_cs);
		else
			printf("null");
		printf(", \"ok\": %s}%s\n", pt->r.ok ? "true" : "false",
		       i + 1 < s->npoints ? "," : "");
	}
	printf("]}\n");
}

/* One data file per (algorithm, threads) and a gnuplot script. */
static int plot(const struct sweep *s, const char *png)
{
	char dir[] = "/tmp/rcl-bench-plot-XXXXXX", path[4096], cmd[4200];
	FILE *script;
	int rc;

	if (!mkdtemp(dir)) {
		perror("rcl-bench: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	script = fopen(path, "w");
	if (!script)
		return 1;
	fprintf(script,
		"set terminal pngcairo size %d,600 noenhanced\n"
		"set output '%s'\nset logscale xy\nset grid\n"
		"set key outside right\nset xlabel 'delay between sections "
		"(cycles)'\n"
		"set ylabel 'cycles per critical section'\n",
		500 * s->nthreads + 200, png);
	if (s->nthreads > 1)
		fprintf(script, "set multiplot layout 1,%d\n", s->nthreads);
	for (int t = 0; t < s->nthreads; t++) {
		fprintf(script,
			"set title '%d client threads, %d line%s'\nplot ",
			s->threads[t], s->base.lines,
			s->base.lines > 1 ? "s" : "");
		for (int a = 0; a < s->nalgos; a++) {
			char data[4096];
			FILE *f;

			snprintf(data, sizeof(data), "%s/%s-%d.dat", dir,
				 s->algos[a], s->threads[t]);
			if (!(f = fopen(data, "w")))
				return 1;
			for (int i = 0; i < s->npoints; i++)
				if (s->points[i].p.threads == s->threads[t] &&
				    strcmp(s->points[i].p.algorithm,
					   s->algos[a]) == 0)
					fprintf(f, "%llu %.1f\n",
						(unsigned long long)s->points[i]
							.p.delay,
						s->points[i].r.cycles_per_cs);
			fclose(f);
			fprintf(script,
				"%s'%s' using 1:2 with linespoints title '%s'",
				a ? ", " : "", data, s->algos[a]);
		}
		fputc('\n', script);
	}
	if (s->nthreads > 1)
		fprintf(script, "unset multiplot\n");
	fclose(script);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s' && rm -rf '%s'", path, dir);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr,
			"rcl-bench: gnuplot failed (is gnuplot installed?); "
			"data kept in %s\n",
			dir);
		return 1;
	}
	fprintf(stderr, "rcl-bench: wrote %s\n", png);
	return 0;
}

static const char sweep_usage[] =
	"usage: rcl-bench sweep --lock A,B,... [--threads T,...] [--lines L]\n"
	"                       [--delays D,...] [--iterations N] "
	"[--max-seconds S]\n"
	"                       [--csv FILE] [--json] [--plot FILE.png] "
	"[--no-pin]\n"
	"Runs the microbenchmark for every algorithm x thread count x delay\n"
	"(default delays: 100 ... 1,000,000 cycles on a log scale; default\n"
	"threads: 2), prints CSV (or JSON with --json) on stdout, a progress "
	"bar\n"
	"on stderr, and with --plot draws cycles per section against delay.\n"
	"Exits 1 if any run's shared data did not add up.\n";

static int run_all(struct sweep *s)
{
	int total = s->nalgos * s->nthreads * s->ndelays, ok = 1;

	s->points = calloc((size_t)total, sizeof(*s->points));
	if (!s->points)
		return ENOMEM;
	for (int a = 0; a < s->nalgos; a++)
		for (int t = 0; t < s->nthreads; t++)
			for (int d = 0; d < s->ndelays; d++) {
				struct point *pt = &s->points[s->npoints];

				pt->p = s->base;
				pt->p.algorithm = s->algos[a];
				pt->p.threads = s->threads[t];
				pt->p.delay = s->delays[d];
				progress(s->npoints, total, &pt->p);
				if (cs_run(&pt->p, &pt->r) != 0)
					return EINVAL;
				ok &= pt->r.ok;
				s->npoints++;
			}
	progress(total, total, NULL);
	return ok ? 0 : EIO;
}

static void parse_list(const char *opt, char *arg, struct sweep *s, int which)
{
	char *items[MAX_ITEMS];
	int n = bench_split(arg, items, MAX_ITEMS);

	if (n == 0)
		bench_usage_error("%s needs a comma-separated list", opt);
	for (int i = 0; i < n; i++) {
		if (which == 't')
			s->threads[i] =
				(int)bench_parse_long(opt, items[i], 1, 4096);
		else
			s->delays[i] = (uint64_t)bench_parse_long(opt, items[i],
								  0, 1L << 40);
	}
	if (which == 't')
		s->nthreads = n;
	else
		s->ndelays = n;
}

int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lock", required_argument, 0, 'l'},
		{"threads", required_argument, 0, 't'},
		{"lines", required_argument, 0, 'L'},
		{"delays", required_argument, 0, 'D'},
		{"iterations", required_argument, 0, 'n'},
		{"max-seconds", required_argument, 0, 'm'},
		{"csv", required_argument, 0, 'c'},
		{"json", no_argument, 0, 'j'},
		{"plot", required_argument, 0, 'p'},
		{"no-pin", no_argument, 0, 'P'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct sweep s = {.nthreads = 1, .threads = {2}};
	const char *csv = NULL, *png = NULL;
	bool json = false;
	int opt, rc;

	cs_params_default(&s.base);
	s.base.iterations = 20000;
	s.base.max_seconds = 1;
	s.ndelays = sizeof(default_delays) / sizeof(default_delays[0]);
	memcpy(s.delays, default_delays, sizeof(default_delays));
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			s.nalgos = bench_split(optarg, s.algos, MAX_ITEMS);
			break;
		case 't':
			parse_list("--threads", optarg, &s, 't');
			break;
		case 'D':
			parse_list("--delays", optarg, &s, 'D');
			break;
		case 'c':
			csv = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			png = optarg;
			break;
		case 'h':
			fputs(sweep_usage, stdout);
			return 0;
		default:
			if (!cs_option(&s.base, opt, optarg))
				bench_usage_error("sweep: bad option");
		}
	}
	if (optind < argc)
		bench_usage_error("sweep: unexpected argument '%s'",
				  argv[optind]);
	if (s.nalgos == 0)
		bench_usage_error("sweep: --lock A,B,... is required");
	for (int a = 0; a < s.nalgos; a++)
		if (liblock_algorithm_info(s.algos[a],
					   &(liblock_algorithm_info_t){0}) != 0)
			bench_usage_error("sweep: unknown algorithm '%s' (see "
					  "rcl-bench --list)",
					  s.algos[a]);
	rc = run_all(&s);
	if (rc == EINVAL || rc == ENOMEM)
		return 1;
	if (json)
		print_json(&s);
	else
		print_csv(stdout, &s);
	if (csv) {
		FILE *f = fopen(csv, "w");

		if (!f) {
			fprintf(stderr, "rcl-bench: cannot write %s: %s\n", csv,
				strerror(errno));
			return 1;
		}
		print_csv(f, &s);
		fclose(f);
	}
	if (png && plot(&s, png) != 0)
		rc = EIO;
	free(s.points);
	return rc == 0 ? 0 : 1;
}
