/* SPDX-License-Identifier: MIT */
/* A portability layer whose lock type is a structure holding the mutex,
   named mutex_t. */
#ifndef BOX_H
#define BOX_H
#include <pthread.h>

typedef struct {
	pthread_mutex_t sys;
} mutex_t;

void box_lock(mutex_t *m);
void box_unlock(mutex_t *m);
long box_add(long v);
long box_total(void);
#endif
