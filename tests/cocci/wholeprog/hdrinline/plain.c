/* SPDX-License-Identifier: MIT */
#include "tally.h"

void add_plain(long v)
{
	pthread_mutex_lock(&totals.lock);
	tally_check(v);
	totals.n++;
	totals.sum += tally_scaled(v);
	pthread_mutex_unlock(&totals.lock);
}
