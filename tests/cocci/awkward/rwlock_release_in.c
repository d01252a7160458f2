/* SPDX-License-Identifier: MIT */
/* expect: held pthread_rwlock_unlock() (an rwlock's holder is a thread) */
/* expect: refused pthread_rwlock_wrlock() takes a read-write lock */
/* Hand-over-hand from a pthread rwlock to a mutex: the caller
 * write-locks 'cfg', takes the 'stats' mutex, and releases 'cfg' inside
 * the mutex's section.
 * The defect it guards against: rwlocks are not converted, so the rwlock unlock is an
 * ordinary call in the section and the section is delegated.  Under
 * LIBLOCK_LOCK=rcl the RCL server thread calls pthread_rwlock_unlock() on
 * a write lock owned by the client thread; glibc decides writer vs reader
 * unlock by comparing the caller's tid with the lock's writer, takes it
 * for a reader unlock, and the rwlock is left write-locked: the program
 * hangs (timeout, exit 124).  posix and mcs are fine.  pthread rwlocks
 * have an owner, as recursive/error-checking mutexes do (which the tool
 * does hold); an rwlock unlock (or wrlock kept past the section) in a
 * section should hold it too. */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t cfg = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;
static long version, published;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_wrlock(&cfg);
		version++;
		pthread_mutex_lock(&stats);
		published++;
		pthread_rwlock_unlock(&cfg);
		pthread_mutex_unlock(&stats);
		pthread_rwlock_rdlock(&cfg);
		pthread_rwlock_unlock(&cfg);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("version %ld published %ld\n", version, published);
	return version == published ? 0 : 1;
}
