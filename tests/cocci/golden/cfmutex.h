/* SPDX-License-Identifier: MIT */
/* A library's own name for the mutex type (clangfacts_ok.c). */
#include <pthread.h>

typedef pthread_mutex_t lib_mutex_t;
