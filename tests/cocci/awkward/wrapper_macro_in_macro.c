/* SPDX-License-Identifier: MIT */
/* A loop macro that locks through wrapper functions and leaves the loop
   with the lock held, also expanded inside another macro (Tor's
   test_threads.c: SPIN_UNTIL() calls tor_mutex_acquire(), and SPIN()
   expands SPIN_UNTIL()).  The expansions inside WAIT_DONE() are not
   followed, but the macro's text never changes: each call takes its
   wrapper's lock, converted with it.  The lock was kept POSIX for them,
   and all of Tor's 62 sections refused with -p. */
/* expect: held in the body of macro SPIN_UNTIL */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NT 4
#define IT 2000

typedef struct {
	pthread_mutex_t mutex;
} xmutex_t;

static void xm_acquire(xmutex_t *m)
{
	if (pthread_mutex_lock(&m->mutex) != 0)
		abort();
}

static void xm_release(xmutex_t *m)
{
	if (pthread_mutex_unlock(&m->mutex) != 0)
		abort();
}

struct info {
	xmutex_t *mutex;
	int started;
	int done;
	long total;
};

static struct info info_g;

#define SPIN_UNTIL(condition, sleep_us)		\
	while (1) {				\
		xm_acquire(ti->mutex);		\
		if (condition)			\
			break;			\
		xm_release(ti->mutex);		\
		usleep(sleep_us);		\
	}

#define WAIT_DONE() SPIN_UNTIL(ti->done == NT, 200)

static void *worker(void *arg)
{
	struct info *ti = arg;

	xm_acquire(ti->mutex);
	ti->started++;
	xm_release(ti->mutex);
	for (long i = 0; i < IT; i++) {
		xm_acquire(ti->mutex);
		ti->total += i;
		xm_release(ti->mutex);
	}
	xm_acquire(ti->mutex);
	ti->done++;
	xm_release(ti->mutex);
	return NULL;
}

int main(void)
{
	struct info *ti = &info_g;
	pthread_t t[NT];
	long total;

	ti->mutex = malloc(sizeof(*ti->mutex));
	if (ti->mutex == NULL || pthread_mutex_init(&ti->mutex->mutex, NULL))
		return 1;
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, ti);
	SPIN_UNTIL(ti->started == NT, 100);
	printf("started %d\n", ti->started);
	xm_release(ti->mutex);
	WAIT_DONE();
	total = ti->total;
	xm_release(ti->mutex);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld done %d\n", total, ti->done);
	pthread_mutex_destroy(&ti->mutex->mutex);
	free(ti->mutex);
	return 0;
}
