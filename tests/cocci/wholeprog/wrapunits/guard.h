/* SPDX-License-Identifier: MIT */
/* A project's mutex type and its lock functions, defined in their own
 * unit (guard.c): the units that lock call them and name no mutex. */
#ifndef GUARD_H
#define GUARD_H
#include <pthread.h>

typedef struct guard {
	pthread_mutex_t mutex;
} guard_t;

void guard_acquire(guard_t *g);
void guard_release(guard_t *g);
#endif
