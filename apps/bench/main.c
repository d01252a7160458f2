/* SPDX-License-Identifier: MIT */
/* rcl-bench: microbenchmarks for every liblock algorithm. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: rcl-bench COMMAND [OPTIONS]\n"
	"       rcl-bench --list | --help | --version\n"
	"\n"
	"Commands (each takes --help and --json):\n"
	"  cs         the thesis microbenchmark: T threads, L shared lines "
	"per\n"
	"             critical section, D cycles between sections\n"
	"  sweep      cs over delays x algorithms x thread counts; CSV/JSON, "
	"--plot\n"
	"  pingpong   a cache line's round trip between two CPUs (the floor of "
	"a\n"
	"             remote call)\n"
	"  misses     profiler validation: exactly N cache misses per section\n"
	"  calibrate  derive rcl-prof's thresholds from the POSIX sweep run "
	"under\n"
	"             the profiler\n"
	"  report     every table of docs/PERFORMANCE.md, measured in one run\n"
	"  compare    our rcl lock against the original RCL library (built "
	"from\n"
	"             its sources: --peer DIR), interleaved, as ratios\n"
	"  coloc      frequent-request contention: threads pinned by the "
	"lock they\n"
	"             share (co-location) against unpinned, as ratios\n"
	"\n"
	"Algorithms are named as listed by --list.  Cycles are TSC cycles.\n";

static int list(void)
{
	const char *const *names = liblock_algorithms();

	for (int i = 0; names[i]; i++) {
		liblock_algorithm_info_t info;

		liblock_algorithm_info(names[i], &info);
		printf("%-16s %s%s\n", info.name, info.summary,
		       info.caps & LIBLOCK_CAP_SERVER ? " [server CPU]" : "");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} commands[] = {
		{"cs", cmd_cs},
		{"sweep", cmd_sweep},
		{"pingpong", cmd_pingpong},
		{"misses", cmd_misses},
		{"calibrate", cmd_calibrate},
		{"report", cmd_report},
		{"compare", cmd_compare},
		{"coloc", cmd_coloc},
	};

	int cpus[1];

	bench_cpus(cpus, 1); /* remember the machine before any server starts */
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--list") == 0)
		return list();
	if (strcmp(argv[1], "--version") == 0) {
		puts("rcl-bench (" PACKAGE_STRING ")");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			bench_tsc_hz(); /* measured once, before any timing */
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr,
		"rcl-bench: unknown command '%s' (see rcl-bench --help)\n",
		argv[1]);
	return 2;
}
