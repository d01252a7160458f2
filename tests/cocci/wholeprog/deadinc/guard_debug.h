/* SPDX-License-Identifier: MIT */
/* Tracing locks, for debug builds only (see guard.h). */
#ifndef GUARD_DEBUG_H
#define GUARD_DEBUG_H
#include <stdio.h>

void guard_trace_take(pthread_mutex_t *m, const char *file, int line);
void guard_trace_give(pthread_mutex_t *m, const char *file, int line);

#define guard_take(m) guard_trace_take((m), __FILE__, __LINE__)
#define guard_give(m) guard_trace_give((m), __FILE__, __LINE__)
#endif
