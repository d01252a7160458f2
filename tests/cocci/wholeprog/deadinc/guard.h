/* SPDX-License-Identifier: MIT */
/* The project's lock vocabulary.  A debug build (-DGUARD_DEBUG) swaps in
 * a tracing version from guard_debug.h; this build does not, so the
 * compiler never reads that header, nor the mutex version of
 * table_lock_t. */
#ifndef GUARD_H
#define GUARD_H
#include <pthread.h>

#ifdef GUARD_DEBUG
#include "guard_debug.h"
#else
#define guard_take(m) pthread_mutex_lock(m)
#define guard_give(m) pthread_mutex_unlock(m)
#endif

/* Readers and writers share a table; a platform without rwlocks would
 * make do with a mutex.  This one has them. */
#ifdef GUARD_NO_RWLOCK
typedef pthread_mutex_t table_lock_t;
#define table_read(l) pthread_mutex_lock(l)
#define table_write(l) pthread_mutex_lock(l)
#define table_done(l) pthread_mutex_unlock(l)
#else
typedef pthread_rwlock_t table_lock_t;
#define table_read(l) pthread_rwlock_rdlock(l)
#define table_write(l) pthread_rwlock_wrlock(l)
#define table_done(l) pthread_rwlock_unlock(l)
#endif
#endif
