/* Lock helpers every unit gets through this header, the way xz's
 * mythread.h gives mythread_mutex_lock(): static inline, on a pointer. */
#ifndef SYNC_H
#define SYNC_H
#include <pthread.h>

static inline void sync_lock(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static inline void sync_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}
#endif
