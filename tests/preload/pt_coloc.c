/* SPDX-License-Identifier: MIT */
/*
 * rcl-run --colocate: the program creates five threads, three with start
 * routine worker_a and two with worker_b (exported dynamic symbols, so a
 * plan may name them), in a fixed order; each prints its
 * creation index and the CPUs it may run on as soon as it starts, under a
 * mutex (so the interposer's mutexes work beside the pinning).  The output
 * is sorted by index: "thread I: cpus C[,C...]".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "pt.h"

#define NTHREADS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char lines[NTHREADS + 1][256];

static void *report(long index)
{
	cpu_set_t set;
	int n = 0;

	CHECK(sched_getaffinity(0, sizeof(set), &set));
	CHECK(pthread_mutex_lock(&lock));
	n = snprintf(lines[index], sizeof(lines[index]), "thread %ld: cpus",
		     index);
	for (int c = 0, first = 1; c < CPU_SETSIZE && n < 200; c++)
		if (CPU_ISSET(c, &set)) {
			n += snprintf(lines[index] + n,
				      sizeof(lines[index]) - (size_t)n, "%s%d",
				      first ? " " : ",", c);
			first = 0;
		}
	CHECK(pthread_mutex_unlock(&lock));
	return NULL;
}

/* default visibility: this build compiles with -fvisibility=hidden */
#define EXPORTED __attribute__((visibility("default")))
EXPORTED void *worker_a(void *arg);
EXPORTED void *worker_b(void *arg);

void *worker_a(void *arg)
{
	return report((long)arg);
}

void *worker_b(void *arg)
{
	return report((long)arg);
}

int main(void)
{
	static void *(*const starts[NTHREADS])(void *) = {
		worker_a, worker_b, worker_a, worker_b, worker_a};
	pthread_t t[NTHREADS];

	/* one at a time: creation index i is thread i */
	for (long i = 0; i < NTHREADS; i++) {
		CHECK(pthread_create(&t[i], NULL, starts[i], (void *)(i + 1)));
		CHECK(pthread_join(t[i], NULL));
	}
	for (int i = 1; i <= NTHREADS; i++)
		puts(lines[i]);
	return 0;
}
