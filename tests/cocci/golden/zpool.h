/* Golden: lock, condition and type macros in #if branches, shaped like
 * zstd's lib/common/threading.h (see pool_ok.c). */
#ifndef ZPOOL_H
#define ZPOOL_H
#include <pthread.h>

#if defined(_WIN32)
#define Z_mutex_t CRITICAL_SECTION
#define Z_mutex_init(a, b) ((void)(b), InitializeCriticalSection((a)), 0)
#define Z_mutex_lock(a) EnterCriticalSection((a))
#define Z_mutex_unlock(a) LeaveCriticalSection((a))
#define Z_cond_t CONDITION_VARIABLE
#define Z_cond_init(a, b) ((void)(b), InitializeConditionVariable((a)), 0)
#define Z_cond_wait(a, b) SleepConditionVariableCS((a), (b), INFINITE)
#define Z_cond_signal(a) WakeConditionVariable((a))
#elif defined(Z_MT) && !defined(Z_DEBUG)
#define Z_mutex_t pthread_mutex_t
#define Z_mutex_init(a, b) pthread_mutex_init((a), (b))
#define Z_mutex_destroy(a) pthread_mutex_destroy((a))
#define Z_mutex_lock(a) pthread_mutex_lock((a))
#define Z_mutex_unlock(a) pthread_mutex_unlock((a))
#define Z_cond_t pthread_cond_t
#define Z_cond_init(a, b) pthread_cond_init((a), (b))
#define Z_cond_destroy(a) pthread_cond_destroy((a))
#define Z_cond_wait(a, b) pthread_cond_wait((a), (b))
#define Z_cond_signal(a) pthread_cond_signal((a))
#elif defined(Z_MT)
#define Z_mutex_t pthread_mutex_t *
#define Z_mutex_lock(a) pthread_mutex_lock(*(a))
#define Z_mutex_unlock(a) pthread_mutex_unlock(*(a))
#define Z_cond_t pthread_cond_t *
#define Z_cond_wait(a, b) pthread_cond_wait(*(a), *(b))
#define Z_cond_signal(a) pthread_cond_signal(*(a))
#endif

#define Z_LOG(...) do { if (0) (void)(__VA_ARGS__); } while (0);

#endif
