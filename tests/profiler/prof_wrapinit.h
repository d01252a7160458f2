/* SPDX-License-Identifier: MIT */
/*
 * prof_wrapinit's lock wrappers, the way libuv, fio and xz write theirs:
 * a type of their own and functions that take the lock as a parameter.
 * The names are in parentheses so that t_wrapinit.sh can give
 * rcl-refactor the wrappers as macros (as apps/harness does for libuv).
 */
#ifndef PROF_WRAPINIT_H
#define PROF_WRAPINIT_H
#include <pthread.h>

typedef pthread_mutex_t app_mutex_t;

/* Out of line (prof_wrapwrap.c), like uv_mutex_init(). */
int(app_mutex_init)(app_mutex_t *m);
void(app_mutex_lock)(app_mutex_t *m);
void(app_mutex_unlock)(app_mutex_t *m);

/* Inlined, like xz's mythread_mutex_init(). */
static inline __attribute__((always_inline)) int(app_mutex_init_inline)(
	app_mutex_t *m)
{
	return pthread_mutex_init(m, NULL);
}
#endif
