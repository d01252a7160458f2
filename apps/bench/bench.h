/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench internals: timing (TSC), thread placement, hardware counters,
 * and the microbenchmark that every subcommand builds on.
 */
#ifndef BENCH_H
#define BENCH_H

#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "liblock.h"

/* ---- time ---- */
static inline uint64_t bench_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* TSC ticks per second, measured once against CLOCK_MONOTONIC. */
double bench_tsc_hz(void);
/* Busy-wait @cycles TSC ticks (the "delay" between sections). */
void bench_delay(uint64_t cycles);

/* ---- placement ---- */
/* CPUs this process may run on, in order; returns how many. */
int bench_cpus(int *cpus, int max);
/* Pin the calling thread to @cpu; 0 or errno. */
int bench_pin(int cpu);

/* ---- shared lines ---- */
/* A chain of @n zeroed cache lines, non-adjacent and in a shuffled order;
 * each holds the address of the next, so prefetchers cannot help. */
struct bench_line {
	struct bench_line *next;
	uint64_t count;
};

/* Allocate the chain; *@block is what to free().  0 or ENOMEM. */
int bench_lines_new(int n, struct bench_line **head, char **block);
/* Does every line's count equal @expected? */
bool bench_lines_check(const struct bench_line *head, long expected);

/* ---- hardware counters (PAPI) ---- */
/* Per-thread cache-miss counting.  bench_counters_available() says
 * whether counting works here and, if not, why (a "n/a: ..." string). */
bool bench_counters_available(const char **why);
/* Start counting in the calling thread; returns a handle or -1. */
int bench_counters_start(void);
/* Stop and return the misses counted since start (0 on handle -1). */
long long bench_counters_stop(int handle);

/* ---- the microbenchmark (thesis §8.1) ---- */
struct cs_params {
	const char *algorithm;
	int threads;	    /* client threads */
	int lines;	    /* shared cache lines per section (1..64) */
	uint64_t delay;	    /* cycles between sections */
	long iterations;    /* sections per thread */
	double max_seconds; /* stop early after this long (0: never) */
	int server;	    /* server CPU for delegation locks, or -1 */
	bool pin;	    /* pin clients round-robin */
};

struct cs_result {
	long sections;		/* sections executed, all threads */
	double cycles_per_cs;	/* elapsed cycles / sections */
	double seconds;		/* wall time of the run */
	double throughput;	/* sections per second */
	double misses_per_cs;	/* client-side misses per section, or -1 */
	const char *misses_why; /* when misses_per_cs < 0 */
	bool ok;		/* shared data adds up */
};

/* Run one configuration.  Returns 0, or an errno with a message printed. */
int cs_run(const struct cs_params *p, struct cs_result *r);
void cs_params_default(struct cs_params *p);

/* ---- subcommands ---- */
int cmd_cs(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_pingpong(int argc, char **argv);
int cmd_misses(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_coloc(int argc, char **argv);

/* ---- small helpers ---- */
/* Parse a non-negative integer option value or exit(2) with a message. */
long bench_parse_long(const char *opt, const char *value, long min, long max);
double bench_parse_double(const char *opt, const char *value, double min,
			  double max);
/* Split a comma-separated list in place; returns the count (<= max). */
int bench_split(char *list, char **items, int max);
/* Print @s as a JSON string. */
void bench_json_str(FILE *f, const char *s);
/* Exit(2) with "rcl-bench: <msg>". */
_Noreturn void bench_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Shared by cs, sweep and calibrate. */
void cs_print(const struct cs_params *p, const struct cs_result *r, bool json);
int cs_option(struct cs_params *p, int opt, const char *arg);
/* Median cycles per round trip between CPUs @a and @b. */
double pingpong_median(int a, int b, long n, bool two_lines);

#endif /* BENCH_H */
