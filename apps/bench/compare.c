/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench compare: our RCL lock against the original RCL library (Lozi
 * et al., USENIX ATC'12: the liblock/ directory of github.com/bitslab/ffwd),
 * and our interposer against LiTL (Guiroux et al., USENIX ATC'16:
 * github.com/multicore-locks/litl), on the same workload, interleaved in
 * one run.
 *
 * The original is built from its own sources, found in the peer directory
 * the user gives (never shipped with librcl), together with our driver
 * (peers/ffwd_rcl.c), which runs the `cs` workload through the original's
 * API.  Each configuration runs R rounds; a round runs ours (`rcl-bench
 * cs` in a child process) and then the original's driver, so both see the
 * same machine state; the table gives the medians and their ratio.
 *
 * LiTL is an LD_PRELOAD library per algorithm, so the second table runs
 * one unmodified pthread program (peers/pthread_cs.c, the same workload
 * on a pthread mutex) under `rcl-run --lock ALGO` and under LiTL's
 * library for the same algorithm, built by peers/build-litl.sh.
 */
#include "bench.h"

#include <errno.h>
#include <signal.h>
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
		"[--rounds R]\n"
		"                         [--litl-locks LIST|none] [--json]\n"
		"Runs the cs workload (see rcl-bench cs --help) on our locks "
		"and on the\n"
		"peers found in DIR, built from their sources, interleaved "
		"round by round in\n"
		"one run; prints median cycles per section and the ratio "
		"ours / peer.\n"
		"  DIR/ffwd (a clone of https://github.com/bitslab/ffwd, or "
		"its "
		"liblock/):\n"
		"    the original RCL library (Lozi et al. 2012) against our "
		"rcl lock.\n"
		"  DIR/litl (a clone of "
		"https://github.com/multicore-locks/litl "
		"with obj/CLHT,\n"
		"    obj/CLHT/ssmem and obj/CLHT/sspfd cloned as its Makefile "
		"does): one\n"
		"    pthread program under LiTL's library and under rcl-run, "
		"for each lock of\n"
		"    --litl-locks (default posix,mcs,mcs_stp,malthusian_stp; "
		"none skips LiTL).\n"
		"Default configurations: T=1 with 1 and 5 lines, no delay; "
		"T=4, 8, 16 with\n"
		"1 and 5 lines, delay 100.  --threads/--lines/--delay give a "
		"grid instead.\n"
		"Needs a C compiler, make, libpapi-dev and libnuma-dev (the "
		"peers' builds).\n");
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

/* One of our peer files (a driver, the LiTL build script): installed, or
 * in the source tree when rcl-bench runs uninstalled. */
static const char *peer_file(const char *name)
{
	static char path[PATH_MAX];
	const char *const dirs[] = {RCL_BENCH_PEERS_DIR,
				    RCL_BENCH_SRC_PEERS_DIR};

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (access(path, R_OK) == 0)
			return path;
	}
	fprintf(stderr, "rcl-bench: compare: cannot find %s in %s\n", name,
		RCL_BENCH_PEERS_DIR);
	return NULL;
}

/* LiTL's checkout under @dir (DIR/litl or DIR itself), or NULL. */
static char *find_litl(const char *dir)
{
	static const char *const subdirs[] = {"litl", "."};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/src/interpose.c", dir,
			 subdirs[i]);
		if (access(path, R_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/src/waiting_policy.h", dir,
			 subdirs[i]);
		if (access(path, R_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		return realpath(path, NULL);
	}
	return NULL;
}

/* Seconds a run of an interposed driver may take: a spinning FIFO lock
 * with more threads than CPUs can take hours (LiTL's MCS at T=4 on two
 * loaded CPUs ran for 17 minutes). */
#define RUN_TIMEOUT 60
#define TIMED_OUT (-2)

/* Run @argv, killed after @timeout seconds (0: never); its stdout into
 * @out (NUL-terminated).  Returns the exit status, TIMED_OUT, or -1 if it
 * could not run or died otherwise. */
static int run_capture(char *const *argv, char *out, size_t size, bool quiet,
		       unsigned timeout)
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
		/* the alarm survives exec; its default action ends the
		 * program, and its children (rcl-run's) with it */
		alarm(timeout);
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
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return TIMED_OUT;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run the compiler with @argv; a one-line error and its output if it
 * fails. */
static int compile(char *const *argv, const char *what)
{
	char out[8192];

	if (run_capture(argv, out, sizeof(out), true, 0) == 0)
		return 0;
	fprintf(stderr,
		"rcl-bench: compare: building %s failed (needs cc, "
		"libpapi-dev, libnuma-dev):\n%s",
		what, out);
	return 1;
}

/* Build the original as its Makefile does (liblock.so from rcl.c and
 * liblock.c, -O3 -fPIC) and our driver against it, into @bin (once per
 * peer directory). */
static int build_peer(const char *peer, const char *bin)
{
	const char *src;
	char inc[PATH_MAX + 2], rcl[PATH_MAX], lib[PATH_MAX], so[PATH_MAX + 80],
		rpath[PATH_MAX + 16];
	const char *cc = getenv("CC");
	struct stat st;

	if (stat(bin, &st) == 0)
		return 0;
	if (!(src = peer_file("ffwd_rcl.c")))
		return 1;
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
	if (compile(lib_argv, "the original") != 0 ||
	    compile(drv_argv, "the original") != 0) {
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

/* Our algorithms and LiTL's library of the same algorithm (LiTL names
 * them ALGO_POLICY, policy "original" when the algorithm fixes it). */
static const struct litl_name {
	const char *ours, *litl;
} litl_names[] = {
	{"posix", "pthreadinterpose_original"},
	{"posix_adaptive", "pthreadadaptive_original"},
	{"spinlock", "spinlock_original"},
	{"ttas", "ttas_original"},
	{"backoff", "backoff_original"},
	{"ticket", "ticket_original"},
	{"mcs", "mcs_spinlock"},
	{"mcs_stp", "mcs_spin_then_park"},
	{"clh", "clh_spinlock"},
	{"clh_stp", "clh_spin_then_park"},
	{"mcstp", "mcstp_original"},
	{"mutexee", "mutexee_original"},
	{"partitioned", "partitioned_original"},
	{"anderson", "alockepfl_original"},
	{"cbomcs", "cbomcs_spinlock"},
	{"cbomcs_stp", "cbomcs_spin_then_park"},
	{"ctkttkt", "ctkttkt_original"},
	{"cptltkt", "cptltkt_original"},
	{"hticket", "htlockepfl_original"},
	{"hmcs", "hmcs_original"},
	{"ahmcs", "hyshmcs_original"},
	{"malthusian", "malthusian_spinlock"},
	{"malthusian_stp", "malthusian_spin_then_park"},
};

static const char *litl_name(const char *ours)
{
	for (size_t i = 0; i < sizeof(litl_names) / sizeof(litl_names[0]); i++)
		if (strcmp(litl_names[i].ours, ours) == 0)
			return litl_names[i].litl;
	return NULL;
}

/* The rcl-run to measure: the build tree's when this rcl-bench is the
 * build tree's, else the installed one. */
static const char *rcl_run_path(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		if (strncmp(exe, RCL_BENCH_BUILDDIR "/",
			    strlen(RCL_BENCH_BUILDDIR) + 1) == 0)
			return RCL_BENCH_BUILDDIR "/liblock/interpose/rcl-run";
	}
	return RCL_BENCH_BINDIR "/rcl-run";
}

/* Build LiTL's library for each of @locks (our names, @n of them) that is
 * not built yet, and the pthread driver, into @out. */
static int build_litl(const char *litl, const char *out, char **locks, int n)
{
	const char *script, *drv;
	char *argv[MAX_CONFIGS + 5], so[PATH_MAX + 80], bin[PATH_MAX + 48];
	const char *cc = getenv("CC");
	int argc = 0, missing = 0;
	struct stat bst, sst;

	if (!cc || !*cc)
		cc = "cc";
	if (!(script = peer_file("build-litl.sh")) ||
	    !(script = strdup(script)))
		return 1;
	argv[argc++] = "/bin/sh";
	argv[argc++] = (char *)script;
	argv[argc++] = (char *)litl;
	argv[argc++] = (char *)out;
	for (int i = 0; i < n; i++) {
		snprintf(so, sizeof(so), "%s/lib%s.so", out,
			 litl_name(locks[i]));
		if (access(so, R_OK) != 0) {
			argv[argc++] = (char *)litl_name(locks[i]);
			missing++;
		}
	}
	argv[argc] = NULL;
	if (missing) {
		fprintf(stderr, "rcl-bench: compare: building LiTL from %s\n",
			litl);
		if (compile(argv, "LiTL") != 0) {
			free((char *)script);
			return 1;
		}
	}
	free((char *)script);
	/* the driver is rebuilt when its source is newer */
	snprintf(bin, sizeof(bin), "%s/pthread_cs", out);
	if (!(drv = peer_file("pthread_cs.c")))
		return 1;
	if (stat(bin, &bst) == 0 && stat(drv, &sst) == 0 &&
	    bst.st_mtime >= sst.st_mtime)
		return 0;
	char *const drv_argv[] = {(char *)cc, "-O2",	   (char *)drv, "-o",
				  bin,	      "-lpthread", NULL};
	return compile(drv_argv, "the pthread driver");
}

/* One run of the pthread driver: under rcl-run --lock @ours, or under
 * LiTL's library @so.  Cycles per section, TIMED_OUT or -1. */
static double run_interposed(const char *driver, const char *ours,
			     const char *so, const struct config *c, long iters)
{
	char t[16], l[16], d[32], n[32], env[PATH_MAX + 16], out[4096];
	char *const ours_argv[] = {(char *)rcl_run_path(),
				   "--lock",
				   (char *)ours,
				   "--",
				   (char *)driver,
				   t,
				   l,
				   d,
				   n,
				   NULL};
	char *const litl_argv[] = {"env", env, (char *)driver, t, l, d,
				   n,	  NULL};

	snprintf(t, sizeof(t), "%d", c->threads);
	snprintf(l, sizeof(l), "%d", c->lines);
	snprintf(d, sizeof(d), "%llu", (unsigned long long)c->delay);
	snprintf(n, sizeof(n), "%ld", iters);
	snprintf(env, sizeof(env), "LD_PRELOAD=%s", so ? so : "");
	int rc = run_capture(so ? litl_argv : ours_argv, out, sizeof(out), true,
			     RUN_TIMEOUT);

	if (rc == TIMED_OUT)
		return TIMED_OUT;
	if (rc != 0 || !strstr(out, "ok=1")) {
		fprintf(stderr, "rcl-bench: compare: %s %s run failed: %s",
			so ? "LiTL's" : "rcl-run's", ours, out);
		return -1;
	}
	if (field(out, "cycles_per_cs=") <= 0) {
		fprintf(stderr, "rcl-bench: compare: no timing from %s %s: %s",
			so ? "LiTL's" : "rcl-run's", ours, out);
		return -1;
	}
	return field(out, "cycles_per_cs=");
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
	if (run_capture(argv, out, sizeof(out), true, 0) != 0 ||
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
	if (run_capture(argv, out, sizeof(out), true, 0) != 0 ||
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

/* Our rcl lock against the original RCL library, config by config. */
static int compare_original(const char *peer, const struct config *configs,
			    int nc, long iters, int rounds, bool json)
{
	char bin[PATH_MAX + 64];

	/* the build goes beside the sources' directory, keyed by nothing
	 * else: remove it to rebuild */
	snprintf(bin, sizeof(bin), "%s/.rcl-bench-ffwd_rcl", peer);
	if (build_peer(peer, bin) != 0)
		return 1;
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
			if (ours[r] < 0 || orig[r] < 0)
				return 1;
		}
		mo = median(ours, rounds);
		mp = median(orig, rounds);
		if (json)
			printf("{\"peer\": \"original\", \"lock\": \"rcl\", "
			       "\"threads\": %d, \"lines\": %d, \"delay\": "
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
	return 0;
}

/* A table cell: cycles per section, or a timeout ("timeout", null). */
static void cell(char *buf, size_t size, double v, bool json)
{
	if (v > 0)
		snprintf(buf, size, "%.1f", v);
	else if (json)
		snprintf(buf, size, "null");
	else
		snprintf(buf, size, ">%ds", RUN_TIMEOUT);
}

/* rcl-run against LiTL, lock by lock and config by config, on one
 * unmodified pthread program. */
static int compare_litl(const char *litl, char **locks, int nlocks,
			const struct config *configs, int nc, long iters,
			int rounds, bool json)
{
	char out[PATH_MAX + 32], driver[PATH_MAX + 48], so[PATH_MAX + 80];

	snprintf(out, sizeof(out), "%s/.rcl-bench-litl", litl);
	if (build_litl(litl, out, locks, nlocks) != 0)
		return 1;
	snprintf(driver, sizeof(driver), "%s/pthread_cs", out);
	if (!json)
		printf("%-15s %-8s %-6s %-6s %12s %12s %10s\n", "lock",
		       "threads", "lines", "delay", "rcl-run", "LiTL",
		       "ours/LiTL");
	for (int k = 0; k < nlocks; k++) {
		snprintf(so, sizeof(so), "%s/lib%s.so", out,
			 litl_name(locks[k]));
		for (int i = 0; i < nc; i++) {
			const struct config *c = &configs[i];
			/* spinning FIFO locks collapse with more threads
			 * than CPUs: fewer sections there */
			long n = iters		   ? iters
				 : c->threads == 1 ? 500000
						   : 200000 / c->threads;
			double ours[MAX_ROUNDS], peer[MAX_ROUNDS], mo, mp;
			bool ours_out = false, peer_out = false;
			char cell_o[32], cell_p[32], ratio[32];

			/* a side that timed out once is not run again at
			 * this point: its cell says so */
			for (int r = 0; r < rounds; r++) {
				ours[r] = ours_out ? TIMED_OUT
						   : run_interposed(driver,
								    locks[k],
								    NULL, c, n);
				peer[r] = peer_out ? TIMED_OUT
						   : run_interposed(driver,
								    locks[k],
								    so, c, n);
				if (ours[r] == -1 || peer[r] == -1)
					return 1;
				ours_out |= ours[r] == TIMED_OUT;
				peer_out |= peer[r] == TIMED_OUT;
			}
			mo = ours_out ? -1 : median(ours, rounds);
			mp = peer_out ? -1 : median(peer, rounds);
			cell(cell_o, sizeof(cell_o), mo, json);
			cell(cell_p, sizeof(cell_p), mp, json);
			if (mo > 0 && mp > 0)
				snprintf(ratio, sizeof(ratio),
					 json ? "%.3f" : "%.2fx", mo / mp);
			else
				snprintf(ratio, sizeof(ratio), "%s",
					 json ? "null" : "-");
			if (json)
				printf("{\"peer\": \"litl\", \"lock\": "
				       "\"%s\", \"litl_lock\": \"%s\", "
				       "\"threads\": %d, \"lines\": %d, "
				       "\"delay\": %llu, \"rounds\": %d, "
				       "\"ours_cycles_per_cs\": %s, "
				       "\"litl_cycles_per_cs\": %s, "
				       "\"ratio\": %s}\n",
				       locks[k], litl_name(locks[k]),
				       c->threads, c->lines,
				       (unsigned long long)c->delay, rounds,
				       cell_o, cell_p, ratio);
			else
				printf("%-15s %-8d %-6d %-6llu %12s %12s "
				       "%10s\n",
				       locks[k], c->threads, c->lines,
				       (unsigned long long)c->delay, cell_o,
				       cell_p, ratio);
			fflush(stdout);
		}
	}
	return 0;
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
		{"litl-locks", required_argument, NULL, 'L'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	static char default_locks[] = "posix,mcs,mcs_stp,malthusian_stp";
	struct config configs[MAX_CONFIGS];
	int threads[MAX_CONFIGS], lines[MAX_CONFIGS], nt = 0, nl = 0, nc = 0;
	long delay = -1, iters = 0;
	int rounds = 3, opt, rc = 0, nlocks;
	bool json = false;
	const char *dir = NULL;
	char *peer, *litl, *lockarg = default_locks, *locks[MAX_CONFIGS];

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
		case 'L':
			lockarg = optarg;
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
	nlocks = strcmp(lockarg, "none") == 0
			 ? 0
			 : bench_split(lockarg, locks, MAX_CONFIGS);
	for (int k = 0; k < nlocks; k++)
		if (!litl_name(locks[k])) {
			fprintf(stderr,
				"rcl-bench: compare: --litl-locks: '%s' has no "
				"LiTL counterpart (see rcl-bench compare "
				"--help)\n",
				locks[k]);
			return 2;
		}
	if (!dir) {
		fprintf(stderr, "rcl-bench: compare: needs --peer DIR, a "
				"directory with the peers' sources: git clone "
				"https://github.com/bitslab/ffwd DIR/ffwd, "
				"https://github.com/multicore-locks/litl "
				"DIR/litl (see docs/PERFORMANCE.md)\n");
		return 2;
	}
	peer = find_peer(dir);
	litl = nlocks ? find_litl(dir) : NULL;
	if (!peer && !litl) {
		fprintf(stderr,
			"rcl-bench: compare: no peer in %s (looked for the "
			"original RCL library: ffwd/liblock/rcl.c, "
			"liblock/rcl.c or rcl.c with liblock.c beside it; "
			"and LiTL: litl/src/interpose.c or src/interpose.c)\n",
			dir);
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "rcl-bench: compare: needs 2 CPUs or more\n");
		free(peer);
		free(litl);
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
	if (peer)
		rc = compare_original(peer, configs, nc, iters, rounds, json);
	else if (!json)
		printf("(no original RCL library in %s: skipped)\n", dir);
	if (rc == 0 && litl) {
		if (peer && !json)
			printf("\n");
		rc = compare_litl(litl, locks, nlocks, configs, nc, iters,
				  rounds, json);
	} else if (rc == 0 && nlocks && !json) {
		printf("(no LiTL in %s: skipped)\n", dir);
	}
	free(peer);
	free(litl);
	return rc;
}
