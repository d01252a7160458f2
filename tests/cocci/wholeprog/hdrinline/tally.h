/* SPDX-License-Identifier: MIT */
/* Small helpers every unit of the program inlines, the way a project's
 * internal header does: the same definition read by each unit that
 * includes it, and one that a unit's own #define changes. */
#ifndef TALLY_H
#define TALLY_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TALLY_STEP 3

struct tally {
	pthread_mutex_t lock;
	long n, sum;
};

extern struct tally totals;

static inline long tally_scaled(long v)
{
	long out = 0;
	long *p = &out; /* the address of a local */

	*p = v * TALLY_STEP;
	return out;
}

/* A unit that defines TALLY_STRICT before including this file gets a
 * check that ends the process: a section calling it cannot move. */
static inline void tally_check(long v)
{
#ifdef TALLY_STRICT
	if (v < 0) {
		fprintf(stderr, "negative %ld\n", v);
		exit(3);
	}
#else
	(void)v;
#endif
}

void add_plain(long v);
void add_strict(long v);
#endif
