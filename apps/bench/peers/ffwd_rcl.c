/* SPDX-License-Identifier: MIT */
/*
 * rcl-bench compare's driver for the original RCL library (the liblock/
 * directory of the bitslab/ffwd repository, Lozi et al. 2012).  It is
 * compiled by `rcl-bench compare` against that library's own sources,
 * which are never part of librcl.  It runs the workload of `rcl-bench cs`
 * through the original's API: T client threads pinned round-robin to
 * every CPU but the server's, each running N sections of one lock; a
 * section walks L shared lines (each on its own page, shuffled, the next
 * address read from the current line) and increments each; then the
 * thread waits D TSC cycles.  Prints one line:
 *   sections=S cycles_per_cs=C ok=0|1
 * Usage: ffwd_rcl THREADS LINES DELAY ITERATIONS
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "peer_lines.h"

#include "liblock.h"

static liblock_lock_t lock;
static struct line *head;
static long iterations;
static uint64_t delay;
static volatile int go;
static uint64_t t0;

struct client {
	uint64_t end;
	long done;
} __attribute__((aligned(128)));

static void *section(void *arg)
{
	for (struct line *l = arg; l; l = l->next)
		l->count++;
	return arg;
}

static void *client_main(void *arg)
{
	struct client *c = arg;

	while (!go)
		__builtin_ia32_pause();
	for (long i = 0; i < iterations; i++) {
		liblock_exec(&lock, section, head);
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
	int threads, nlines, server;
	struct client *c;
	pthread_t *t;
	uint64_t end;
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
	    topology->nb_cores < 2) {
		fprintf(stderr, "ffwd_rcl: bad arguments or fewer than 2 "
				"CPUs\n");
		return 2;
	}
	head = peer_lines_new(nlines);
	c = aligned_alloc(128, sizeof(*c) * threads);
	t = calloc(threads, sizeof(*t));
	if (!head || !c || !t)
		return 1;
	memset(c, 0, sizeof(*c) * threads);

	/* as the original's own test: the server on the last CPU */
	server = topology->nb_cores - 1;
	liblock_servers_always_up = 0;
	liblock_define_core(&topology->cores[0]);
	liblock_bind_thread(pthread_self(), &topology->cores[0], 0);
	liblock_reserve_core_for(&topology->cores[server], "rcl");
	liblock_lock_init("rcl", &topology->cores[server], &lock, 0);
	for (int i = 0; i < threads; i++)
		if (liblock_thread_create_and_bind(&topology->cores[i % server],
						   0, &t[i], 0, client_main,
						   &c[i]) != 0)
			return 1;
	t0 = __rdtsc();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	end = t0;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		sections += c[i].done;
		if (c[i].end > end)
			end = c[i].end;
	}
	ok = peer_lines_ok(head, sections);
	printf("sections=%ld cycles_per_cs=%.1f ok=%d\n", sections,
	       sections ? (double)(end - t0) / sections : 0.0, ok);
	liblock_lock_destroy(&lock);
	return ok ? 0 : 1;
}
