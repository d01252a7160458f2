/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the liblock test suites: thread fan-out, the
 * multi-line counter workload, and a watchdog.
 */
#ifndef TESTS_STRESS_H
#define TESTS_STRESS_H

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "liblock.h"

#define TEST_LINE 128
#define TEST_LINES 5

/* Counters on distinct cache lines: a lost update shows as a short sum. */
struct shared_lines {
	struct {
		uint64_t value;
		char pad[TEST_LINE - sizeof(uint64_t)];
	} line[TEST_LINES];
};

/* Start @n threads running @fn(@arg_i) and join them. */
static inline void run_threads(int n, void *(*fn)(void *), void *args,
			       size_t arg_size)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, fn,
				       (char *)args + (size_t)i * arg_size),
			0);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	free(t);
}

#endif
