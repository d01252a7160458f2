/* SPDX-License-Identifier: MIT */
/* rcl-bench: TSC calibration, placement, counters, option parsing. */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_PAPI
#include <papi.h>
#endif

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double bench_tsc_hz(void)
{
	static double hz;

	if (hz == 0) {
		double t0 = now_seconds(), t1;
		uint64_t c0 = bench_tsc(), c1;

		do
			t1 = now_seconds();
		while (t1 - t0 < 0.05);
		c1 = bench_tsc();
		hz = (double)(c1 - c0) / (t1 - t0);
	}
	return hz;
}

void bench_delay(uint64_t cycles)
{
	uint64_t start = bench_tsc();

	while (bench_tsc() - start < cycles)
		;
}

/* The CPUs the process could use when rcl-bench started: an RCL server
 * removes its CPU from every thread's mask, and later runs must still know
 * the whole machine. */
int bench_cpus(int *cpus, int max)
{
	static int all[CPU_SETSIZE], nall = -1;
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	cpu_set_t set;
	int n = 0;

	pthread_mutex_lock(&once);
	if (nall < 0) {
		nall = 0;
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set))
					all[nall++] = c;
	}
	pthread_mutex_unlock(&once);
	for (; n < nall && n < max; n++)
		cpus[n] = all[n];
	return n;
}

int bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---- shared lines ---- */

/* One page plus one line apart: no two lines adjacent (prefetchers fetch
 * pairs), and each on its own page. */
#define LINE_STRIDE 4160

int bench_lines_new(int n, struct bench_line **head, char **block)
{
	int *order = malloc(sizeof(*order) * (size_t)n);
	size_t size = (size_t)LINE_STRIDE * (size_t)n + 4096;

	if (!order || posix_memalign((void **)block, 4096, size) != 0) {
		free(order);
		return ENOMEM;
	}
	memset(*block, 0, size);
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) { /* shuffled: not sequential */
		int j = rand() % (i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (int i = 0; i < n; i++) {
		struct bench_line *cur =
			(void *)(*block + (size_t)order[i] * LINE_STRIDE);

		cur->next = i + 1 < n ? (void *)(*block + (size_t)order[i + 1] *
								  LINE_STRIDE)
				      : NULL;
	}
	*head = (void *)(*block + (size_t)order[0] * LINE_STRIDE);
	free(order);
	return 0;
}

bool bench_lines_check(const struct bench_line *head, long expected)
{
	for (const struct bench_line *l = head; l; l = l->next)
		if ((long)l->count != expected)
			return false;
	return true;
}

/* ---- counters ---- */

#ifdef HAVE_PAPI
static int papi_state = -1; /* -1 unknown, 0 unusable, 1 usable */
static const char *papi_why = "n/a: no hardware counters";
static int papi_event = PAPI_L2_TCM;
static pthread_mutex_t papi_mutex = PTHREAD_MUTEX_INITIALIZER;

static void papi_probe(void)
{
	int es = PAPI_NULL;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		papi_why = "n/a: PAPI failed to initialise";
		papi_state = 0;
		return;
	}
	if (PAPI_thread_init(pthread_self) != PAPI_OK ||
	    PAPI_create_eventset(&es) != PAPI_OK) {
		papi_state = 0;
		return;
	}
	if (PAPI_add_event(es, PAPI_L2_TCM) != PAPI_OK) {
		papi_event = PAPI_L1_DCM;
		if (PAPI_add_event(es, PAPI_L1_DCM) != PAPI_OK) {
			papi_state = 0; /* no PMU: the common case in VMs */
			PAPI_destroy_eventset(&es);
			return;
		}
	}
	/* Starting proves the counter can count, not just be named. */
	papi_state = PAPI_start(es) == PAPI_OK;
	if (papi_state) {
		long long v;

		PAPI_stop(es, &v);
	}
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}
#endif

bool bench_counters_available(const char **why)
{
#ifdef HAVE_PAPI
	pthread_mutex_lock(&papi_mutex);
	if (papi_state < 0)
		papi_probe();
	pthread_mutex_unlock(&papi_mutex);
	if (why)
		*why = papi_state ? NULL : papi_why;
	return papi_state == 1;
#else
	if (why)
		*why = "n/a: built without PAPI";
	return false;
#endif
}

int bench_counters_start(void)
{
#ifdef HAVE_PAPI
	int es = PAPI_NULL;

	if (!bench_counters_available(NULL))
		return -1;
	PAPI_register_thread();
	if (PAPI_create_eventset(&es) != PAPI_OK)
		return -1;
	if (PAPI_add_event(es, papi_event) != PAPI_OK ||
	    PAPI_start(es) != PAPI_OK) {
		PAPI_destroy_eventset(&es);
		return -1;
	}
	return es;
#else
	return -1;
#endif
}

long long bench_counters_stop(int handle)
{
#ifdef HAVE_PAPI
	long long v = 0;

	if (handle < 0)
		return 0;
	PAPI_stop(handle, &v);
	PAPI_cleanup_eventset(handle);
	PAPI_destroy_eventset(&handle);
	PAPI_unregister_thread();
	return v;
#else
	(void)handle;
	return 0;
#endif
}

/* ---- options ---- */

void bench_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rcl-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see rcl-bench --help)\n", stderr);
	exit(2);
}

long bench_parse_long(const char *opt, const char *value, long min, long max)
{
	char *end;
	long v;

	if (!value)
		bench_usage_error("%s needs a value", opt);
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || v < min || v > max)
		bench_usage_error("%s: '%s' is not an integer in [%ld, %ld]",
				  opt, value, min, max);
	return v;
}

double bench_parse_double(const char *opt, const char *value, double min,
			  double max)
{
	char *end;
	double v;

	if (!value)
		bench_usage_error("%s needs a value", opt);
	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || v < min || v > max)
		bench_usage_error("%s: '%s' is not a number in [%g, %g]", opt,
				  value, min, max);
	return v;
}

int bench_split(char *list, char **items, int max)
{
	int n = 0;

	for (char *tok = strtok(list, ","); tok && n < max;
	     tok = strtok(NULL, ","))
		if (*tok)
			items[n++] = tok;
	return n;
}

void bench_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}
