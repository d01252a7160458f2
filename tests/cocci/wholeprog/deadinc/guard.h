/* SPDX-License-Identifier: MIT */
/* The project's lock vocabulary.  A debug build (-DGUARD_DEBUG) swaps in
 * a tracing version from guard_debug.h; this build does not, so the
 * compiler never reads that header. */
#ifndef GUARD_H
#define GUARD_H
#include <pthread.h>

#ifdef GUARD_DEBUG
#include "guard_debug.h"
#else
#define guard_take(m) pthread_mutex_lock(m)
#define guard_give(m) pthread_mutex_unlock(m)
#endif
#endif
