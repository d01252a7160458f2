/* Golden: a macro whose body is a whole section (c-blosc's WAIT_INIT) is
 * not a lock macro.  Its lock calls could become liblock's, but the body
 * also waits on a condition variable with the lock, which is not
 * followed: the lock stays POSIX. */
#include <pthread.h>

struct ctx {
	pthread_mutex_t count_mutex;
	pthread_cond_t count_cv;
	int count, nthreads;
};

#define WAIT_INIT(C)                                              \
	pthread_mutex_lock(&(C)->count_mutex);                    \
	if ((C)->count < (C)->nthreads) {                         \
		(C)->count++;                                     \
		pthread_cond_wait(&(C)->count_cv, &(C)->count_mutex); \
	} else {                                                  \
		pthread_cond_broadcast(&(C)->count_cv);           \
	}                                                         \
	pthread_mutex_unlock(&(C)->count_mutex)

void worker_start(struct ctx *c)
{
	WAIT_INIT(c);
}

void reset(struct ctx *c)
{
	pthread_mutex_lock(&c->count_mutex);
	c->count = 0;
	pthread_mutex_unlock(&c->count_mutex);
}
