/* Golden: project lock macros, as real code hides them in a header. */
#ifndef LOCKS_H
#define LOCKS_H
#include <pthread.h>
#define LOCK(m) pthread_mutex_lock(&(m))
#define UNLOCK(m) pthread_mutex_unlock(&(m))
struct stats {
	pthread_mutex_t lock;
	long hits, misses;
};
#endif
