/* SPDX-License-Identifier: MIT */
/*
 * A known program for rcl-prof's stacks, timeline and serialising share
 * (t_stacks.sh, t_plot.sh, t_serial.sh).  Workers take one lock `big`
 * through the chain worker -> outer_fn -> middle_fn -> inner_fn ->
 * pthread_mutex_lock, so every one of their waits happens under it.
 *
 *   prof_stacks long    three rounds: main holds `big` ~60 ms in
 *                       hold_long() while three workers, started then,
 *                       wait for it (then take it once, briefly): the
 *                       hold time serialises the program
 *   prof_stacks short   four workers, each section ~2 us, ~30 ms of work
 *                       between them, worker i starting its rounds i/4 of
 *                       a round late: the threads run in parallel and
 *                       rarely meet.  Without the offsets they ran in
 *                       lockstep (the work is measured on the clock), all
 *                       four reaching the lock at once every round, and
 *                       three blocked behind the first holder serialised
 *                       the program for real (ser% up to 32 in one run of
 *                       30 on a quiet machine).  With them, the sections
 *                       are 7.5 ms apart and every worker is alive during
 *                       all of them (each works 30 ms after its last):
 *                       for a holder to serialise the program, the three
 *                       others must reach the lock while it is off its CPU
 *
 * Work is a busy loop on the monotonic clock, so its wall length does not
 * depend on the machine's speed or load.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "prof_blocked.h"

enum { WORKERS = 4 };

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static long section_us, work_us, iters;
/* long: each worker's thread id, published before it takes `big` (0: not
 * yet), so that hold_long() holds it 60 ms from when all of them wait */
static _Atomic pid_t waiter_tid[WORKERS];
static int long_mode;
static __thread volatile unsigned long sink; /* per thread: no race */

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void spin_us(long us)
{
	long long end = now_us() + us;

	while (now_us() < end)
		sink++;
}

/* noinline, and work after each call (no tail call): each function is a
 * frame of its own on the stack */
__attribute__((noinline)) static void inner_fn(void)
{
	pthread_mutex_lock(&big);
	spin_us(section_us);
	pthread_mutex_unlock(&big);
	sink++;
}

__attribute__((noinline)) static void middle_fn(void)
{
	inner_fn();
	sink++;
}

__attribute__((noinline)) static void outer_fn(void)
{
	middle_fn();
	sink++;
}

static void *worker(void *arg)
{
	long idx = (long)(intptr_t)arg;

	if (long_mode)
		atomic_store(&waiter_tid[idx], prof_gettid());
	spin_us(idx * work_us / WORKERS); /* this worker's phase */
	for (long i = 0; i < iters; i++) {
		outer_fn();
		spin_us(work_us);
	}
	return NULL;
}

static int start(pthread_t *t, long idx)
{
	if (pthread_create(t, NULL, worker, (void *)(intptr_t)idx) != 0) {
		fprintf(stderr, "prof_stacks: pthread_create failed\n");
		return -1;
	}
	return 0;
}

/* Whether all the workers of a long round are blocked on `big`. */
static int all_waiting(void)
{
	for (int i = 0; i < WORKERS - 1; i++) {
		pid_t tid = atomic_load(&waiter_tid[i]);

		if (tid == 0 || !prof_blocked(tid))
			return 0;
	}
	return 1;
}

/* One round of the long program: the workers start while `big` is held
 * and wait for it, all of them for 60 ms (on a loaded machine a worker
 * may first run long after its start: the hold begins to count once
 * every worker is seen blocked, not at a fixed time). */
__attribute__((noinline)) static int hold_long(void)
{
	pthread_t t[WORKERS - 1];
	long long give_up;

	for (int i = 0; i < WORKERS - 1; i++)
		atomic_store(&waiter_tid[i], 0);
	pthread_mutex_lock(&big);
	for (int i = 0; i < WORKERS - 1; i++)
		if (start(&t[i], i) != 0)
			return -1;
	give_up = now_us() + 20000000;
	while (!all_waiting()) {
		if (now_us() > give_up) {
			fprintf(stderr, "prof_stacks: the workers are not all "
					"blocked on big after 20 s\n");
			return -1;
		}
		spin_us(200);
	}
	spin_us(60000);
	pthread_mutex_unlock(&big);
	for (int i = 0; i < WORKERS - 1; i++)
		pthread_join(t[i], NULL);
	sink++;
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t[WORKERS];

	if (argc != 2 ||
	    (strcmp(argv[1], "long") && strcmp(argv[1], "short"))) {
		fprintf(stderr, "usage: prof_stacks long|short\n");
		return 2;
	}
	if (!strcmp(argv[1], "long")) {
		section_us = 0;
		work_us = 0;
		iters = 1;
		long_mode = 1;
		for (int r = 0; r < 3; r++)
			if (hold_long() != 0)
				return 1;
		return 0;
	}
	section_us = 2;
	work_us = 30000;
	iters = 8;
	for (int i = 0; i < WORKERS; i++)
		if (start(&t[i], i) != 0)
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
