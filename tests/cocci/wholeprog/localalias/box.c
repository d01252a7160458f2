/* SPDX-License-Identifier: MIT */
#include "box.h"

static mutex_t total_lock = { PTHREAD_MUTEX_INITIALIZER };
static long total;

void box_lock(mutex_t *m)
{
	pthread_mutex_lock(&m->sys);
}

void box_unlock(mutex_t *m)
{
	pthread_mutex_unlock(&m->sys);
}

long box_add(long v)
{
	long now;

	box_lock(&total_lock);
	total += v;
	now = total;
	box_unlock(&total_lock);
	return now;
}

long box_total(void)
{
	long now;

	box_lock(&total_lock);
	now = total;
	box_unlock(&total_lock);
	return now;
}
