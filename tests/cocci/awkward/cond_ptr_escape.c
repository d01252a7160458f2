/* SPDX-License-Identifier: MIT */
/* A worker structure points at the queue's condition, whose address is
   also handed to a function the tool does not follow (a registry of
   conditions to wake at shutdown).  The condition stays POSIX, and with
   it the pointer, the mutex it waits with, and the mutex whose address
   that one is given: the whole file keeps compiling as it was. */
/* expect: refused its condition variable */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define JOBS 3000

struct worker {
	pthread_mutex_t *qlock;
	pthread_cond_t *qcv;
	long done;
};

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER;
static int pending, closing;
static pthread_cond_t *wake_list[4];
static int nwake;

static void register_wakeup(pthread_cond_t *c)
{
	wake_list[nwake++] = c;
}

static void *work(void *p)
{
	struct worker *w = p;

	for (;;) {
		pthread_mutex_lock(w->qlock);
		while (pending == 0 && !closing)
			pthread_cond_wait(w->qcv, w->qlock);
		if (pending == 0) {
			pthread_mutex_unlock(w->qlock);
			break;
		}
		pending--;
		w->done++;
		pthread_mutex_unlock(w->qlock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct worker w[NT];
	long done = 0;

	register_wakeup(&qcv);
	for (int i = 0; i < NT; i++) {
		w[i] = (struct worker){ .qlock = &qlock, .qcv = &qcv };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < JOBS; i++) {
		pthread_mutex_lock(&qlock);
		pending++;
		pthread_cond_signal(&qcv);
		pthread_mutex_unlock(&qlock);
	}
	pthread_mutex_lock(&qlock);
	closing = 1;
	for (int i = 0; i < nwake; i++)
		pthread_cond_broadcast(wake_list[i]);
	pthread_mutex_unlock(&qlock);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], NULL);
		done += w[i].done;
	}
	printf("%ld\n", done);
	return 0;
}
