/* SPDX-License-Identifier: MIT */
/* apr's locks/unix/thread_mutex.c: a mutex wrapper with a timed variant,
   `rv = pthread_mutex_timedlock(&m->mutex, &abstime)` after turning a
   relative timeout into a deadline, whose caller unlocks through the
   plain wrapper later; and a worker that gives up on a section when the
   deadline passes (`if (pthread_mutex_timedlock(...) == ETIMEDOUT)`).
   pthread_mutex_timedlock() kept the whole lock POSIX ("used outside
   lock/unlock/init/destroy/condition calls: liblock has no timed lock"),
   with every plain section of it.  pthread_mutex_clocklock() too. */
/* expect: held taken with pthread_mutex_timedlock() */
#define _GNU_SOURCE /* pthread_mutex_clocklock() */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

struct guarded {
	pthread_mutex_t mutex;
	long value;
	long gave_up;
};

static struct guarded g = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

static void deadline_in(struct timespec *ts, long usec)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += usec / 1000000;
	ts->tv_nsec += (usec % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int guarded_timedlock(struct guarded *m, long usec)
{
	struct timespec abstime;
	int rv;

	deadline_in(&abstime, usec);
	rv = pthread_mutex_timedlock(&m->mutex, &abstime);
	return rv;
}

/* a wrapper of the call on the mutex it is given */
static int timed_take(pthread_mutex_t *mu, const struct timespec *ts)
{
	return pthread_mutex_timedlock(mu, ts);
}

static int guarded_unlock(struct guarded *m)
{
	return pthread_mutex_unlock(&m->mutex);
}

static void guarded_add(struct guarded *m, long n)
{
	pthread_mutex_lock(&m->mutex);
	m->value += n;
	pthread_mutex_unlock(&m->mutex);
}

#define THREADS 4
#define ROUNDS 20000

struct tally {
	long added, timed_out;
};

static void *worker(void *arg)
{
	struct tally *t = arg;
	struct timespec dl;

	for (int i = 0; i < ROUNDS; i++) {
		if (i % 2) {
			guarded_add(&g, 1);
			t->added++;
			continue;
		}
		deadline_in(&dl, 50000);
		if ((i % 4 ? pthread_mutex_timedlock(&g.mutex, &dl)
			   : timed_take(&g.mutex, &dl)) == ETIMEDOUT) {
			t->timed_out++;
			continue;
		}
		g.value += 2;
		t->added += 2;
		pthread_mutex_unlock(&g.mutex);
	}
	return NULL;
}

static void *impatient(void *arg)
{
	int *rv = arg;

	*rv = guarded_timedlock(&g, 20000);
	if (*rv == 0)
		guarded_unlock(&g);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	struct tally tally[THREADS] = {{0, 0}};
	long added = 0, timed_out = 0;
	int rv = -1, rv2 = -1;
	struct timespec dl;
	pthread_t th;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, &tally[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		added += tally[i].added;
		timed_out += tally[i].timed_out;
	}
	/* held by us for the whole of its 20 ms: it must give up */
	if (guarded_timedlock(&g, 1000000) != 0)
		return 2;
	pthread_create(&th, NULL, impatient, &rv);
	pthread_join(th, NULL);
	guarded_unlock(&g);
	/* free: it must get it */
	pthread_create(&th, NULL, impatient, &rv2);
	pthread_join(th, NULL);
	/* and on the monotonic clock (ThreadSanitizer does not intercept
	   pthread_mutex_clocklock(): it would take the unlock below for one
	   of a free mutex) */
#ifdef __SANITIZE_THREAD__
	deadline_in(&dl, 1000000);
	if (pthread_mutex_timedlock(&g.mutex, &dl) != 0)
		return 3;
#else
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += 1;
	if (pthread_mutex_clocklock(&g.mutex, CLOCK_MONOTONIC, &dl) != 0)
		return 3;
#endif
	g.value++;
	added++;
	pthread_mutex_unlock(&g.mutex);
	printf("value %s, impatient while held: %s, while free: %s\n",
	       g.value == added ? "exact" : "WRONG",
	       rv == ETIMEDOUT ? "timed out" : "WRONG",
	       rv2 == 0 ? "taken" : "WRONG");
	fprintf(stderr, "%ld timed out\n", timed_out);
	return g.value == added && rv == ETIMEDOUT && rv2 == 0 ? 0 : 1;
}
