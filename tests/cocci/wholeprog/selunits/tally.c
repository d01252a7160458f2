/* SPDX-License-Identifier: MIT */
/* A structure's mutex field, reached through a pointer. */
#include "tally.h"

void tally_hit(struct tally *t, int hit)
{
	pthread_mutex_lock(&t->mu);
	if (hit)
		t->hits++;
	else
		t->misses++;
	pthread_mutex_unlock(&t->mu);
}
