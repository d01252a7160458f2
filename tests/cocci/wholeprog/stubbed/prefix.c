/* SPDX-License-Identifier: MIT */
/* memcached's stats_prefix.c: linked into the server (with thread.c)
 * and into its unit-test program (with testapp.c's stubs). */
#include "stats.h"

static long gets, hits;

void count_get(int hit)
{
	STATS_LOCK();
	gets++;
	if (hit)
		hits++;
	STATS_UNLOCK();
}

long gets_total(void)
{
	long n;

	STATS_LOCK();
	n = gets + hits;
	STATS_UNLOCK();
	return n;
}
