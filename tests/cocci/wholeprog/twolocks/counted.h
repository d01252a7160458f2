/* SPDX-License-Identifier: MIT */
/* multipath-tools' libmultipath/lock.h: lock() also counts the threads
 * waiting for the mutex (a plain ++ here). */
#include <pthread.h>

struct counted {
	pthread_mutex_t mutex;
	int waiters;
};

static inline void lock(struct counted *c)
{
	__atomic_add_fetch(&c->waiters, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&c->mutex);
	__atomic_sub_fetch(&c->waiters, 1, __ATOMIC_SEQ_CST);
}

static inline void unlock(struct counted *c)
{
	pthread_mutex_unlock(&c->mutex);
}

static inline int waiting(struct counted *c)
{
	return __atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST);
}
