/* SPDX-License-Identifier: MIT */
/* memcached's testapp.c: stubs out the stats lock of thread.c. */
#include <stdio.h>
#include "stats.h"

void STATS_LOCK(void)
{
}

void STATS_UNLOCK(void)
{
}

int main(void)
{
	count_get(1);
	count_get(0);
	printf("testapp %ld\n", gets_total());
	return 0;
}
