/* SPDX-License-Identifier: MIT */
/*
 * rcl-run: run an unmodified pthread program with every mutex replaced by
 * a liblock algorithm.  It checks the algorithm, sets LIBLOCK_LOCK, adds
 * librclrun.so to LD_PRELOAD and execs the command, so the exit status is
 * the command's own.
 *
 * librclrun.so is looked for in $RCL_RUN_PRELOAD, then next to this
 * executable unless it runs from its installed place (the build tree:
 * liblock/interpose/.libs/), then in the installed pkglibdir.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "liblock.h"
#include "pti_plan.h"

#define PRELOAD_NAME "librclrun.so"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rcl-run --lock ALGO [--report FILE] [--colocate PLAN] "
		"[--no-ship] [--] CMD [ARGS...]\n"
		"       rcl-run --list\n"
		"Run CMD with every pthread mutex replaced by the liblock "
		"algorithm ALGO.\n\n"
		"  -l, --lock ALGO    lock algorithm (see --list)\n"
		"  -r, --report FILE  append per-process wrapper call counts "
		"to FILE at exit\n"
		"  -c, --colocate PLAN\n"
		"                     pin the threads PLAN names to its CPUs "
		"as they are\n"
		"                     created (lines 'cpu N: THREAD...', "
		"THREAD a creation\n"
		"                     index 1, 2, ... or @start_routine; "
		"rcl-prof\n"
		"                     --colocate-plan FILE writes one)\n"
		"      --no-ship      with --lock rcl: run every section in "
		"place on the\n"
		"                     lock word instead of shipping contended "
		"ones to the\n"
		"                     server (for comparison)\n"
		"      --list         list the algorithms usable here, one per "
		"line\n"
		"  -h, --help         this help\n\n"
		"The exit status is CMD's; 2 for a usage error, 126/127 when "
		"CMD "
		"cannot be run.\nWith rcl, a thread that finds a mutex "
		"busy ships its execution context\nto the server, which runs "
		"the section up to the unlock.  The other delegation\n"
		"algorithms (fc, ccsynch, ...) need extracted critical "
		"sections: see rcl-refactor.\n"
		"See rcl-run(1).\n");
}

/* Can @info's algorithm replace pthread mutexes?  It needs lock/unlock.
 * rcl has them, and runs contended sections on its server by shipping
 * the waiting thread's context there (docs/RCL-RUN.md); the other
 * delegation algorithms need extracted sections. */
static bool runs_mutexes(const liblock_algorithm_info_t *info)
{
	return (info->caps & LIBLOCK_CAP_LOCK) != 0;
}

static int list(void)
{
	const char *const *names = liblock_algorithms();
	liblock_algorithm_info_t info;

	for (size_t i = 0; names[i]; i++)
		if (liblock_algorithm_info(names[i], &info) == 0 &&
		    runs_mutexes(&info))
			printf("%-16s %s\n", info.name, info.summary);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The canonical name of @name, or NULL after a one-line error. */
static const char *check_algorithm(const char *name)
{
	liblock_algorithm_info_t info;

	if (liblock_algorithm_info(name, &info) != 0) {
		fprintf(stderr,
			"rcl-run: unknown lock algorithm '%s' "
			"(rcl-run --list shows the usable ones)\n",
			name);
		return NULL;
	}
	if (!runs_mutexes(&info)) {
		fprintf(stderr,
			"rcl-run: '%s' is a delegation algorithm: it "
			"runs extracted critical sections (rcl-refactor), not "
			"pthread mutexes\n",
			info.name);
		return NULL;
	}
	return info.name;
}

static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* Where librclrun.so is, into @buf; 0 or -1 after a one-line error. */
static int find_preload(char *buf, size_t len)
{
	const char *env = getenv("RCL_RUN_PRELOAD");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		if (readable(buf))
			return 0;
		fprintf(stderr, "rcl-run: RCL_RUN_PRELOAD=%s: %s\n", env,
			strerror(errno));
		return -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (strcmp(exe, RCL_RUN_BINDIR) != 0 &&
			    (size_t)snprintf(buf, len, "%s/%s", exe,
					     PRELOAD_NAME) < len &&
			    readable(buf))
				return 0;
		}
	}
	snprintf(buf, len, "%s/%s", RCL_RUN_PKGLIBDIR, PRELOAD_NAME);
	if (readable(buf))
		return 0;
	fprintf(stderr,
		"rcl-run: cannot find %s (%s: %s); set RCL_RUN_PRELOAD\n",
		PRELOAD_NAME, buf, strerror(errno));
	return -1;
}

/* Can the report be written to @path?  Checked (and the file created)
 * before the command runs; 0 or -1 after a one-line error. */
static int check_report(const char *path)
{
	int fd;

	if (!*path) {
		fprintf(stderr, "rcl-run: --report: empty file name\n");
		return -1;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "rcl-run: --report %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* RCL_RUN_REPORT=@path, made absolute: processes may change directory. */
static int set_report(const char *path)
{
	char cwd[PATH_MAX], abs[2 * PATH_MAX + 2];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return setenv("RCL_RUN_REPORT", path, 1);
	snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	return setenv("RCL_RUN_REPORT", abs, 1);
}

/* Check the co-location plan in @path and hand it to the interposer in
 * $RCL_RUN_COLOCATE; 0 or -1 after a one-line error. */
static int set_colocate(const char *path)
{
	static struct pti_plan plan;
	static char env[PTI_PLAN_ENV];
	char err[PATH_MAX + 128];
	cpu_set_t allowed;

	if (pti_plan_read_file(path, &plan, err, sizeof(err)) != 0) {
		fprintf(stderr, "rcl-run: --colocate %s\n", err);
		return -1;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		for (int i = 0; i < plan.n; i++)
			if (!CPU_ISSET(plan.e[i].cpu, &allowed)) {
				fprintf(stderr,
					"rcl-run: --colocate %s: CPU %d is "
					"not one this process may run on\n",
					path, plan.e[i].cpu);
				return -1;
			}
	if (pti_plan_format_env(&plan, env, sizeof(env)) != 0) {
		fprintf(stderr, "rcl-run: --colocate %s: plan too large\n",
			path);
		return -1;
	}
	if (setenv("RCL_RUN_COLOCATE", env, 1) != 0) {
		fprintf(stderr, "rcl-run: cannot set the environment: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* LD_PRELOAD=<existing>:@lib, so earlier interposers keep their place. */
static int add_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
	char *v = malloc(len);
	int rc;

	if (!v)
		return -1;
	if (old && *old)
		snprintf(v, len, "%s:%s", old, lib);
	else
		snprintf(v, len, "%s", lib);
	rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"lock", required_argument, NULL, 'l'},
		{"report", required_argument, NULL, 'r'},
		{"colocate", required_argument, NULL, 'c'},
		{"list", no_argument, NULL, 'L'},
		{"no-ship", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *algo = NULL, *report = NULL, *colocate = NULL;
	char lib[PATH_MAX];
	bool no_ship = false;
	int c;

	while ((c = getopt_long(argc, argv, "+l:r:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			algo = optarg;
			break;
		case 'r':
			report = optarg;
			break;
		case 'c':
			colocate = optarg;
			break;
		case 'L':
			return list();
		case 'S':
			no_ship = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr,
				"rcl-run: bad usage (rcl-run --help)\n");
			return 2;
		}
	}
	if (!algo) {
		fprintf(stderr,
			"rcl-run: --lock ALGO is required (rcl-run --help)\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "rcl-run: no command given (rcl-run --help)\n");
		return 2;
	}
	if ((algo = check_algorithm(algo)) == NULL ||
	    (report && check_report(report) != 0) ||
	    (colocate && set_colocate(colocate) != 0) ||
	    find_preload(lib, sizeof(lib)) != 0)
		return 2;
	if (no_ship && strcmp(algo, "rcl") != 0) {
		fprintf(stderr, "rcl-run: --no-ship is for --lock rcl only\n");
		return 2;
	}
	if (setenv("LIBLOCK_LOCK", algo, 1) != 0 || add_preload(lib) != 0 ||
	    (no_ship && setenv("RCL_RUN_SHIP", "0", 1) != 0) ||
	    (report && set_report(report) != 0)) {
		fprintf(stderr, "rcl-run: cannot set the environment: %s\n",
			strerror(errno));
		return 2;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "rcl-run: cannot run '%s': %s\n", argv[optind],
		strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
