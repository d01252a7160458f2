/* SPDX-License-Identifier: MIT */
/* The mutex field of a structure without a tag, known by its typedef. */
#include "tally.h"

unsigned long stamp_next(stamp_t *s)
{
	unsigned long v;

	pthread_mutex_lock(&s->guard);
	v = ++s->last;
	pthread_mutex_unlock(&s->guard);
	return v;
}
