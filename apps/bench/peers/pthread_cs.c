/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench compare's driver for the interposers: the workload of
 * `rcl-bench cs` written against plain pthread mutexes, so that one
 * unmodified binary runs under LiTL (LD_PRELOAD=libALGO_POLICY.so) and
 * under `rcl-run --lock ALGO`.  T threads pinned round-robin to the CPUs
 * the process may use, each running N sections of one mutex; a section
 * walks L shared lines (each on its own page, shuffled, the next address
 * read from the current line) and increments each; then the thread waits
 * D TSC cycles.  Prints one line:
 *   sections=S cycles_per_cs=C ok=0|1
 * Usage: pthread_cs THREADS LINES DELAY ITERATIONS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "peer_lines.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct line *head;
static long iterations;
static uint64_t delay;
static pthread_barrier_t start;
static int cpus[CPU_SETSIZE], ncpus;

struct client {
	int index;
	long done;
	uint64_t begin, end;
} __attribute__((aligned(128)));

static void *client_main(void *arg)
{
	struct client *c = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpus[c->index % ncpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&start);
	c->begin = __rdtsc();
	for (long i = 0; i < iterations; i++) {
		pthread_mutex_lock(&lock);
		for (struct line *l = head; l; l = l->next)
			l->count++;
		pthread_mutex_unlock(&lock);
		c->done++;
		if (delay) {
			uint64_t s = __rdtsc();

			while (__rdtsc() - s < delay)
				;
		}
	}
	c->end = __rdtsc();
	return NULL;
}

int main(int argc, char **argv)
{
	int threads, nlines;
	struct client *c;
	pthread_t *t;
	cpu_set_t set;
	uint64_t t0, end;
	long sections = 0;
	int ok;

	if (argc != 5) {
		fprintf(stderr, "usage: %s THREADS LINES DELAY ITERATIONS\n",
			argv[0]);
		return 2;
	}
	threads = atoi(argv[1]);
	nlines = atoi(argv[2]);
	delay = strtoull(argv[3], NULL, 10);
	iterations = atol(argv[4]);
	if (threads < 1 || nlines < 1 || iterations < 1 ||
	    sched_getaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, "pthread_cs: bad arguments\n");
		return 2;
	}
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpus[ncpus++] = i;
	head = peer_lines_new(nlines);
	c = aligned_alloc(128, sizeof(*c) * threads);
	t = calloc(threads, sizeof(*t));
	if (!head || !c || !t)
		return 1;
	memset(c, 0, sizeof(*c) * threads);

	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++) {
		c[i].index = i;
		if (pthread_create(&t[i], NULL, client_main, &c[i]) != 0)
			return 1;
	}
	pthread_barrier_wait(&start);
	/* from the first thread's start to the last one's end: with more
	 * threads than CPUs, main may run long after the barrier */
	t0 = UINT64_MAX;
	end = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		sections += c[i].done;
		if (c[i].begin < t0)
			t0 = c[i].begin;
		if (c[i].end > end)
			end = c[i].end;
	}
	ok = peer_lines_ok(head, sections);
	printf("sections=%ld cycles_per_cs=%.1f ok=%d\n", sections,
	       sections ? (double)(end - t0) / sections : 0.0, ok);
	return ok ? 0 : 1;
}
