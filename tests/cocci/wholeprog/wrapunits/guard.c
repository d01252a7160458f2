/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "guard.h"

void guard_acquire(guard_t *g)
{
	int err = pthread_mutex_lock(&g->mutex);

	if (err) {
		fprintf(stderr, "cannot lock\n");
		abort();
	}
}

void guard_release(guard_t *g)
{
	int err = pthread_mutex_unlock(&g->mutex);

	if (err) {
		fprintf(stderr, "cannot unlock\n");
		abort();
	}
}
