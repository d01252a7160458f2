/* SPDX-License-Identifier: MIT */
#define TALLY_STRICT 1
#include "tally.h"

void add_strict(long v)
{
	pthread_mutex_lock(&totals.lock);
	tally_check(v);
	totals.n++;
	totals.sum += tally_scaled(v);
	pthread_mutex_unlock(&totals.lock);
}
