/* SPDX-License-Identifier: MIT */
/* multipath-tools' libmultipath/lock.h: lock() counts the threads that
   wait for the mutex, so that the holder can see them and let go
   (lock_has_waiters()).  Written with C11 atomics, the counting is an
   expression libclang does not expose (AtomicExpr): it was taken for
   nothing, lock() for a plain wrapper of pthread_mutex_lock(), and the
   section `lock(&q); ...; unlock(&q);` became a liblock_exec() through
   lock()'s companion: the waiter was never counted, and the holder
   below never saw it.  lock() is more than a lock: its sections stay in
   place. */
/* expect: held in another function */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

struct counted_lock {
	pthread_mutex_t mutex;
	atomic_int waiters;
};

static inline void lock(struct counted_lock *l)
{
	atomic_fetch_add(&l->waiters, 1);
	pthread_mutex_lock(&l->mutex);
	atomic_fetch_sub(&l->waiters, 1);
}

static inline void unlock(struct counted_lock *l)
{
	pthread_mutex_unlock(&l->mutex);
}

static inline int has_waiters(struct counted_lock *l)
{
	return atomic_load(&l->waiters) > 0;
}

static struct counted_lock q = { PTHREAD_MUTEX_INITIALIZER, 0 };
static long jobs_done;
static atomic_int holding;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&holding))
		;
	lock(&q);
	jobs_done++;
	unlock(&q);
	return NULL;
}

int main(void)
{
	pthread_t t;
	int seen = 0;

	lock(&q);
	atomic_store(&holding, 1);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	for (int i = 0; i < 5000 && !seen; i++) {
		struct timespec ts = { 0, 1000000 };

		seen = has_waiters(&q);
		nanosleep(&ts, NULL);
	}
	jobs_done += 10;
	unlock(&q);
	pthread_join(t, NULL);
	printf("waiter seen: %d, jobs %ld\n", seen, jobs_done);
	return !(seen && jobs_done == 11);
}
