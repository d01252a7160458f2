/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench calibrate: the thesis's method (§4.4) for rcl-prof's two
 * thresholds on this machine.  For each delay, the POSIX microbenchmark
 * runs under rcl-prof, which maps the delay to "% of time in critical
 * sections"; the same delay is also run uncontended (one thread) and with
 * every competing algorithm.
 *   lower threshold: the % in CS at the largest delay where POSIX has
 *                    collapsed (>= 1.5x slower than uncontended);
 *   upper threshold: the % in CS at the largest delay where RCL is the
 *                    fastest of all algorithms compared.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ITEMS 32

/* The number after "@key": in @text, or -1. */
static double json_number(const char *text, const char *key)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	if (!(p = strstr(text, pat)))
		return -1;
	p += strlen(pat);
	while (*p == ' ' || *p == ':')
		p++;
	return strtod(p, NULL);
}

/* The whole of file @path, NUL-terminated, or NULL. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *bigger = realloc(buf, cap = 2 * cap + 8192);

			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* Path of rcl-prof: $RCL_PROF, next to us (installed), in the build tree,
 * or on $PATH. */
static const char *find_profiler(char *buf, size_t size)
{
	static const char *const rel[] = {"rcl-prof", "../profiler/rcl-prof",
					  "../../profiler/rcl-prof"};
	char self[PATH_MAX];
	ssize_t n;

	if (getenv("RCL_PROF"))
		return getenv("RCL_PROF");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		*strrchr(self, '/') = 0;
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			if (snprintf(buf, size, "%s/%s", self, rel[i]) <
				    (int)size &&
			    access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "rcl-prof";
}

/* Run `rcl-prof -o FILE -- rcl-bench cs ...` for posix at @delay; fill the
 * microbenchmark's cycles and the profile's % time in CS. */
static int profiled_posix(const char *prof, int threads, uint64_t delay,
			  long iterations, double *cycles, double *pct)
{
	char self[PATH_MAX], cmd[3 * PATH_MAX], out[4096], *prof_json, *locks;
	char tmp[] = "/tmp/rcl-calibrate-XXXXXX";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *p;
	size_t len;
	int fd = mkstemp(tmp);

	if (n <= 0 || fd < 0)
		return errno ? errno : EIO;
	close(fd);
	self[n] = 0;
	snprintf(cmd, sizeof(cmd),
		 "'%s' --table none -o '%s' -- '%s' cs --lock posix --threads "
		 "%d "
		 "--lines 1 --delay %llu --iterations %ld --max-seconds 2 "
		 "--json",
		 prof, tmp, self, threads, (unsigned long long)delay,
		 iterations);
	if (!(p = popen(cmd, "r")))
		return errno;
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = 0;
	if (pclose(p) != 0) {
		fprintf(stderr, "rcl-bench: calibrate: '%s' failed\n", cmd);
		unlink(tmp);
		return EIO;
	}
	*cycles = json_number(out, "cycles_per_cs");
	prof_json = read_file(tmp);
	unlink(tmp);
	/* the hottest lock comes first in "locks": the benchmark's lock */
	locks = prof_json ? strstr(prof_json, "\"locks\"") : NULL;
	*pct = locks ? json_number(locks, "pct_time_in_cs") : -1;
	free(prof_json);
	if (*cycles < 0 || *pct < 0) {
		fprintf(stderr,
			"rcl-bench: calibrate: no cycles_per_cs or "
			"pct_time_in_cs in the outputs of '%s'\n",
			cmd);
		return EIO;
	}
	return 0;
}

struct row {
	uint64_t delay;
	double alone; /* posix, one thread */
	double posix; /* posix, T threads, under the profiler */
	double pct;   /* profile: % time in CS */
	double best;  /* fastest algorithm's cycles */
	const char *best_name;
};

static const char calibrate_usage[] =
	"usage: rcl-bench calibrate [--threads T] [--delays D,...] [--lock "
	"A,B,...]\n"
	"                           [--iterations N] [--output FILE] [--json]\n"
	"Derives rcl-prof's thresholds on this machine: runs the POSIX\n"
	"microbenchmark (1 line) at each delay under rcl-prof to map the delay "
	"to\n"
	"%% time in critical sections; the lower threshold is where POSIX has\n"
	"collapsed (>= 1.5x slower than uncontended), the upper one where rcl "
	"beats\n"
	"every algorithm of --lock (default: every algorithm without a "
	"server,\n"
	"plus rcl).  --output writes them as JSON for rcl-prof --thresholds.\n";

static int compare_all(char **algos, int nalgos, int threads, long iterations,
		       struct row *row)
{
	for (int a = 0; a < nalgos; a++) {
		struct cs_params p;
		struct cs_result r;

		cs_params_default(&p);
		p.algorithm = algos[a];
		p.threads = threads;
		p.delay = row->delay;
		p.iterations = iterations;
		p.max_seconds = 1;
		if (cs_run(&p, &r) != 0 || !r.ok)
			return EIO;
		if (!row->best_name || r.cycles_per_cs < row->best) {
			row->best = r.cycles_per_cs;
			row->best_name = algos[a];
		}
	}
	return 0;
}

static int default_competitors(char **algos)
{
	const char *const *names = liblock_algorithms();
	int n = 0;

	for (int i = 0; names[i] && n < MAX_ITEMS; i++) {
		liblock_algorithm_info_t info;

		liblock_algorithm_info(names[i], &info);
		if (!(info.caps & LIBLOCK_CAP_SERVER) ||
		    strcmp(names[i], "rcl") == 0)
			algos[n++] = (char *)names[i];
	}
	return n;
}

static void report(const struct row *rows, int n, int threads, double lower,
		   double upper, bool json, FILE *out)
{
	if (json || out) {
		FILE *f = out ? out : stdout;

		/* a threshold not reached is left out: rcl-prof keeps its
		 * default for it */
		fprintf(f, "{\"threads\": %d, ", threads);
		if (lower >= 0)
			fprintf(f, "\"lower\": %.1f, ", lower);
		if (upper >= 0)
			fprintf(f, "\"upper\": %.1f, ", upper);
		fprintf(f, "\"points\": [");
		for (int i = 0; i < n; i++)
			fprintf(f,
				"%s{\"delay\": %llu, \"pct_time_in_cs\": %.1f, "
				"\"posix\": %.1f, \"posix_alone\": %.1f, "
				"\"best\": \"%s\"}",
				i ? ", " : "",
				(unsigned long long)rows[i].delay, rows[i].pct,
				rows[i].posix, rows[i].alone,
				rows[i].best_name);
		fprintf(f, "]}\n");
		if (json)
			return;
	}
	printf("%10s %8s %12s %12s  %s\n", "delay", "% in CS", "posix",
	       "posix alone", "fastest");
	for (int i = 0; i < n; i++)
		printf("%10llu %7.1f%% %12.0f %12.0f  %s\n",
		       (unsigned long long)rows[i].delay, rows[i].pct,
		       rows[i].posix, rows[i].alone, rows[i].best_name);
	printf("thresholds: lower %.1f%% (POSIX collapses), upper %.1f%% (rcl "
	       "best)\n",
	       lower, upper);
}

/* Thresholds from the rows (largest delay first is the order we scan). */
static void derive(const struct row *rows, int n, double *lower, double *upper)
{
	*lower = *upper = -1;
	for (int i = 0; i < n; i++) {
		if (rows[i].posix >= 1.5 * rows[i].alone &&
		    (*lower < 0 || rows[i].pct < *lower))
			*lower = rows[i].pct;
		if (rows[i].best_name &&
		    strcmp(rows[i].best_name, "rcl") == 0 &&
		    (*upper < 0 || rows[i].pct < *upper))
			*upper = rows[i].pct;
	}
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"threads", required_argument, 0, 't'},
		{"delays", required_argument, 0, 'D'},
		{"lock", required_argument, 0, 'l'},
		{"iterations", required_argument, 0, 'n'},
		{"output", required_argument, 0, 'o'},
		{"json", no_argument, 0, 'j'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static const uint64_t default_delays[] = {100,	 1000,	 3162,	 10000,
						  31623, 100000, 1000000};
	uint64_t delays[MAX_ITEMS];
	char *algos[MAX_ITEMS], *items[MAX_ITEMS], profbuf[PATH_MAX];
	int ndelays = 7, nalgos = 0, opt, cpus[1024];
	int threads = bench_cpus(cpus, 1024) > 2 ? bench_cpus(cpus, 1024) : 2;
	long iterations = 20000;
	const char *output = NULL,
		   *prof = find_profiler(profbuf, sizeof(profbuf));
	bool json = false;
	struct row rows[MAX_ITEMS] = {0};
	double lower, upper;
	FILE *out = NULL;

	memcpy(delays, default_delays, sizeof(default_delays));
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 't')
			threads = (int)bench_parse_long("--threads", optarg, 2,
							4096);
		else if (opt == 'D') {
			ndelays = bench_split(optarg, items, MAX_ITEMS);
			for (int i = 0; i < ndelays; i++)
				delays[i] = (uint64_t)bench_parse_long(
					"--delays", items[i], 0, 1L << 40);
		} else if (opt == 'l')
			nalgos = bench_split(optarg, algos, MAX_ITEMS);
		else if (opt == 'n')
			iterations = bench_parse_long("--iterations", optarg,
						      100, 1L << 32);
		else if (opt == 'o')
			output = optarg;
		else if (opt == 'j')
			json = true;
		else if (opt == 'h') {
			fputs(calibrate_usage, stdout);
			return 0;
		} else
			bench_usage_error("calibrate: bad option");
	}
	if (nalgos == 0)
		nalgos = default_competitors(algos);
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "rcl-bench: cannot write %s: %s\n", output,
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < ndelays; i++) {
		struct cs_params p;
		struct cs_result r;

		fprintf(stderr, "\rcalibrate: delay %llu (%d/%d)   ",
			(unsigned long long)delays[i], i + 1, ndelays);
		rows[i].delay = delays[i];
		cs_params_default(&p);
		p.threads = 1;
		p.delay = delays[i];
		p.iterations = iterations;
		p.max_seconds = 1;
		if (cs_run(&p, &r) != 0)
			return 1;
		rows[i].alone = r.cycles_per_cs;
		if (profiled_posix(prof, threads, delays[i], iterations,
				   &rows[i].posix, &rows[i].pct) != 0 ||
		    compare_all(algos, nalgos, threads, iterations, &rows[i]) !=
			    0)
			return 1;
	}
	fputc('\n', stderr);
	derive(rows, ndelays, &lower, &upper);
	if (lower < 0 || upper < 0)
		fprintf(stderr,
			"rcl-bench: calibrate: %s not reached on these "
			"delays (printed as -1, left out of --output: "
			"rcl-prof keeps its default)\n",
			lower < 0 ? "POSIX collapse" : "an rcl win");
	else if (lower > upper)
		fprintf(stderr,
			"rcl-bench: calibrate: rcl wins only above %.1f%% "
			"but POSIX collapses from %.1f%%: rcl-prof needs "
			"lower <= upper, edit the file\n",
			upper, lower);
	report(rows, ndelays, threads, lower, upper, json, out);
	if (out && fclose(out) != 0)
		return 1;
	return 0;
}
