/* Golden: lock macros under preprocessor conditionals, shaped like
 * zstd's lib/common/threading.h (see ifdef_ok.c). */
#ifndef MTLOCKS_H
#define MTLOCKS_H
#include <pthread.h>

#if defined(T_MT) && defined(_WIN32)
#define T_mutex_lock(a) EnterCriticalSection((a))
#define T_mutex_unlock(a) LeaveCriticalSection((a))
#elif defined(T_MT)
#define T_mutex_lock(a) pthread_mutex_lock((a))
#define T_mutex_unlock(a) pthread_mutex_unlock((a))
#else
#define T_mutex_lock(a) ((void)(a))
#define T_mutex_unlock(a) ((void)(a))
#endif

#if T_LEVEL >= 2
#define T_LOCK2(m) T_mutex_lock(&(m))
#define T_UNLOCK2(m) T_mutex_unlock(&(m))
#else
#define T_LOCK2(m) ((void)0)
#define T_UNLOCK2(m) ((void)0)
#endif

#endif
