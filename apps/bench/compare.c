/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench compare: our RCL lock against the original RCL library (Lozi
 * et al., USENIX ATC'12: the liblock/ directory of github.com/bitslab/ffwd),
 * on the same workload, interleaved in one run.
 *
 * The original is built from its own sources, found in the peer directory
 * the user gives (never shipped with librcl), together with our driver
 * (peers/ffwd_rcl.c), which runs the `cs` workload through the original's
 * API.  Each configuration runs R rounds; a round runs ours (`rcl-bench
 * cs` in a child process) and then the original's driver, so both see the
 * same machine state; the table gives the medians and their ratio.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CONFIGS 64
#define MAX_ROUNDS 15

struct config {
	int threads, lines;
	uint64_t delay;
};

/* The configurations of issue "RCL locks at the cost of the original
 * call": one client without delay (the call's latency), and 4 to 16
 * clients with 100 cycles between sections (the server's throughput). */
static const struct config default_configs[] = {
	{1, 1, 0},    {1, 5, 0},   {4, 1, 100}, {8, 1, 100},
	{16, 1, 100}, {4, 5, 100}, {8, 5, 100}, {16, 5, 100},
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rcl-bench compare --peer DIR [--threads LIST] "
		"[--lines LIST]\n"
		"                         [--delay D] [--iterations N] "
		"[--rounds R] [--json]\n"
		"Runs the cs workload (see rcl-bench cs --help) on our rcl "
		"lock "
		"and on the\n"
		"original RCL library (bitslab/ffwd's liblock/, Lozi et al. "
		"2012), built from\n"
		"its sources in DIR, interleaved round by round in one run; "
		"prints median\n"
		"cycles per section and the ratio ours / original.\n"
		"DIR is a clone of https://github.com/bitslab/ffwd, or its "
		"liblock/ directory.\n"
		"Default configurations: T=1 with 1 and 5 lines, no delay; "
		"T=4, 8, 16 with\n"
		"1 and 5 lines, delay 100.  --threads/--lines/--delay give a "
		"grid instead.\n"
		"Needs a C compiler, libpapi-dev and libnuma-dev (the "
		"original's build).\n");
}

/* The original's sources under @dir, or NULL. */
static char *find_peer(const char *dir)
{
	static const char *const subdirs[] = {"ffwd/liblock", "liblock", "."};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/rcl.c", dir, subdirs[i]);
		if (access(path, R_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/liblock.c", dir,
			 subdirs[i]);
		if (access(path, R_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		return realpath(path, NULL);
	}
	return NULL;
}

/* Our driver's source: installed, or in the source tree. */
static const char *driver_source(void)
{
	static const char *const candidates[] = {
		RCL_BENCH_PEERS_DIR "/ffwd_rcl.c",
		RCL_BENCH_SRC_PEERS_DIR "/ffwd_rcl.c",
	};

	for (size_t i = 0; i < 2; i++)
		if (access(candidates[i], R_OK) == 0)
			return candidates[i];
	return NULL;
}

/* Run @argv; its stdout into @out (NUL-terminated).  Returns the exit
 * status, or -1 if it could not run or died. */
static int run_capture(char *const *argv, char *out, size_t size, bool quiet)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		if (quiet)
			dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < size &&
	       (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	while (read(p[0], &(char){0}, 1) > 0)
		;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Run the compiler with @argv; a one-line error and its output if it
 * fails. */
static int compile(char *const *argv)
{
	char out[8192];

	if (run_capture(argv, out, sizeof(out), true) == 0)
		return 0;
	fprintf(stderr,
		"rcl-bench: compare: building the original failed (needs cc, "
		"libpapi-dev, libnuma-dev):\n%s",
		out);
	return 1;
}

/* Build the original as its Makefile does (liblock.so from rcl.c and
 * liblock.c, -O3 -fPIC) and our driver against it, into @bin (once per
 * peer directory). */
static int build_peer(const char *peer, const char *bin)
{
	const char *src = driver_source();
	char inc[PATH_MAX + 2], rcl[PATH_MAX], lib[PATH_MAX], so[PATH_MAX + 80],
		rpath[PATH_MAX + 16];
	const char *cc = getenv("CC");
	struct stat st;

	if (stat(bin, &st) == 0)
		return 0;
	if (!src) {
		fprintf(stderr,
			"rcl-bench: compare: cannot find the driver ffwd_rcl.c "
			"in %s\n",
			RCL_BENCH_PEERS_DIR);
		return 1;
	}
	if (!cc || !*cc)
		cc = "cc";
	snprintf(inc, sizeof(inc), "-I%s", peer);
	snprintf(rcl, sizeof(rcl), "%s/rcl.c", peer);
	snprintf(lib, sizeof(lib), "%s/liblock.c", peer);
	snprintf(so, sizeof(so), "%s.so", bin);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", peer);
	/* -fcommon: the original's header defines a variable (id_manager)
	 * in every file that includes it, which GCC 10+ refuses by
	 * default.  No source change is needed. */
	char *const lib_argv[] = {(char *)cc,
				  "-O3",
				  "-fcommon",
				  "-fPIC",
				  "-shared",
				  "-g",
				  "-D_GNU_SOURCE",
				  "-w",
				  inc,
				  rcl,
				  lib,
				  "-o",
				  so,
				  "-lpapi",
				  "-lnuma",
				  "-lpthread",
				  NULL};
	char *const drv_argv[] = {
		(char *)cc,  "-O3",	  "-fcommon", "-D_GNU_SOURCE", "-w",
		inc,	     (char *)src, so,	      rpath,	       "-o",
		(char *)bin, "-lpthread", NULL};

	fprintf(stderr, "rcl-bench: compare: building the original from %s\n",
		peer);
	if (compile(lib_argv) != 0 || compile(drv_argv) != 0) {
		unlink(so);
		unlink(bin);
		return 1;
	}
	return 0;
}

static double field(const char *out, const char *key)
{
	const char *p = strstr(out, key);

	return p ? strtod(p + strlen(key), NULL) : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One run of ours; cycles per section or -1. */
static double run_ours(const struct config *c, long iters)
{
	char t[16], l[16], d[32], n[32], out[4096];
	char *const argv[] = {"/proc/self/exe", "cs", "--lock",	      "rcl",
			      "--threads",	t,    "--lines",      l,
			      "--delay",	d,    "--iterations", n,
			      "--json",		NULL};

	snprintf(t, sizeof(t), "%d", c->threads);
	snprintf(l, sizeof(l), "%d", c->lines);
	snprintf(d, sizeof(d), "%llu", (unsigned long long)c->delay);
	snprintf(n, sizeof(n), "%ld", iters);
	if (run_capture(argv, out, sizeof(out), true) != 0 ||
	    !strstr(out, "\"ok\": true")) {
		fprintf(stderr, "rcl-bench: compare: our run failed: %s", out);
		return -1;
	}
	return field(out, "\"cycles_per_cs\": ");
}

/* One run of the original; cycles per section or -1. */
static double run_peer(const char *bin, const struct config *c, long iters)
{
	char t[16], l[16], d[32], n[32], out[4096];
	char *const argv[] = {(char *)bin, t, l, d, n, NULL};

	snprintf(t, sizeof(t), "%d", c->threads);
	snprintf(l, sizeof(l), "%d", c->lines);
	snprintf(d, sizeof(d), "%llu", (unsigned long long)c->delay);
	snprintf(n, sizeof(n), "%ld", iters);
	if (run_capture(argv, out, sizeof(out), true) != 0 ||
	    !strstr(out, "ok=1")) {
		fprintf(stderr,
			"rcl-bench: compare: the original's run failed: "
			"%s",
			out);
		return -1;
	}
	return field(out, "cycles_per_cs=");
}

static int parse_list(char *arg, const char *opt, int *v, int max, int lo,
		      int hi)
{
	char *items[MAX_CONFIGS];
	int n = bench_split(arg, items, max);

	for (int i = 0; i < n; i++)
		v[i] = (int)bench_parse_long(opt, items[i], lo, hi);
	return n;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{"peer", required_argument, NULL, 'p'},
		{"threads", required_argument, NULL, 't'},
		{"lines", required_argument, NULL, 'l'},
		{"delay", required_argument, NULL, 'd'},
		{"iterations", required_argument, NULL, 'n'},
		{"rounds", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct config configs[MAX_CONFIGS];
	int threads[MAX_CONFIGS], lines[MAX_CONFIGS], nt = 0, nl = 0, nc = 0;
	long delay = -1, iters = 0;
	int rounds = 3, opt, rc = 0;
	bool json = false;
	const char *dir = NULL;
	char *peer, bin[PATH_MAX + 64];

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			dir = optarg;
			break;
		case 't':
			nt = parse_list(optarg, "--threads", threads,
					MAX_CONFIGS, 1, 1024);
			break;
		case 'l':
			nl = parse_list(optarg, "--lines", lines, MAX_CONFIGS,
					1, 64);
			break;
		case 'd':
			delay = bench_parse_long("--delay", optarg, 0,
						 100000000);
			break;
		case 'n':
			iters = bench_parse_long("--iterations", optarg, 1,
						 1000000000);
			break;
		case 'r':
			rounds = (int)bench_parse_long("--rounds", optarg, 1,
						       MAX_ROUNDS);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rcl-bench: compare: bad option (see "
					"rcl-bench compare --help)\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"rcl-bench: compare: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!dir) {
		fprintf(stderr, "rcl-bench: compare: needs --peer DIR, a "
				"directory with "
				"the original RCL library's sources: git clone "
				"https://github.com/bitslab/ffwd DIR/ffwd (see "
				"docs/PERFORMANCE.md)\n");
		return 2;
	}
	if ((peer = find_peer(dir)) == NULL) {
		fprintf(stderr,
			"rcl-bench: compare: no original RCL library in %s "
			"(looked for ffwd/liblock/rcl.c, liblock/rcl.c and "
			"rcl.c with liblock.c beside it)\n",
			dir);
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "rcl-bench: compare: needs 2 CPUs or more\n");
		free(peer);
		return 2;
	}
	if (nt || nl || delay >= 0) {
		if (!nt)
			threads[nt++] = 1;
		if (!nl)
			lines[nl++] = 1;
		for (int i = 0; i < nt; i++)
			for (int j = 0; j < nl && nc < MAX_CONFIGS; j++)
				configs[nc++] = (struct config){
					threads[i], lines[j],
					(uint64_t)(delay < 0 ? 0 : delay)};
	} else {
		nc = (int)(sizeof(default_configs) /
			   sizeof(default_configs[0]));
		memcpy(configs, default_configs, sizeof(default_configs));
	}
	/* the build goes beside the sources' directory, keyed by nothing
	 * else: remove it to rebuild */
	snprintf(bin, sizeof(bin), "%s/.rcl-bench-ffwd_rcl", peer);
	if (build_peer(peer, bin) != 0) {
		free(peer);
		return 1;
	}
	if (!json)
		printf("%-8s %-6s %-6s %12s %12s %10s\n", "threads", "lines",
		       "delay", "ours", "original", "ours/orig");
	for (int i = 0; i < nc; i++) {
		const struct config *c = &configs[i];
		/* about 0.2 s per run at the call's cost */
		long n = iters		   ? iters
			 : c->threads == 1 ? 500000
					   : 1000000 / c->threads;
		double ours[MAX_ROUNDS], orig[MAX_ROUNDS], mo, mp;

		for (int r = 0; r < rounds; r++) {
			ours[r] = run_ours(c, n);
			orig[r] = run_peer(bin, c, n);
			if (ours[r] < 0 || orig[r] < 0) {
				free(peer);
				return 1;
			}
		}
		mo = median(ours, rounds);
		mp = median(orig, rounds);
		if (json)
			printf("{\"threads\": %d, \"lines\": %d, \"delay\": "
			       "%llu, \"rounds\": %d, \"ours_cycles_per_cs\": "
			       "%.1f, \"original_cycles_per_cs\": %.1f, "
			       "\"ratio\": %.3f}\n",
			       c->threads, c->lines,
			       (unsigned long long)c->delay, rounds, mo, mp,
			       mo / mp);
		else
			printf("%-8d %-6d %-6llu %12.1f %12.1f %9.2fx\n",
			       c->threads, c->lines,
			       (unsigned long long)c->delay, mo, mp, mo / mp);
		fflush(stdout);
	}
	free(peer);
	return rc;
}
