/* SPDX-License-Identifier: MIT */
/* A portability layer in the way of liblzma's mythread.h: the condition
 * type is a structure holding the pthread condition and the clock its
 * timed waits count in (CLOCK_MONOTONIC, set with
 * pthread_condattr_setclock(), when the system has it), and small inline
 * wrappers take that structure: the wait passes &c->cv on, the timed wait
 * returns the result it asserts on, and a helper computes deadlines on
 * the condition's own clock.  Three producers and three consumers share
 * a bounded ring; the consumers wait with a deadline and count their
 * time-outs.  The last check waits on a condition nobody signals: the
 * deadline must be read on CLOCK_MONOTONIC, as the condition was made. */
/* expect: transformed */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

typedef pthread_mutex_t pc_mutex;

typedef struct {
	pthread_cond_t cv;
	clockid_t clock;
} pc_cond;

typedef struct timespec pc_deadline;

static inline int pc_mutex_init(pc_mutex *m)
{
	return pthread_mutex_init(m, NULL);
}

static inline void pc_mutex_destroy(pc_mutex *m)
{
	int rc = pthread_mutex_destroy(m);
	assert(rc == 0);
	(void)rc;
}

static inline void pc_mutex_lock(pc_mutex *m)
{
	int rc = pthread_mutex_lock(m);
	assert(rc == 0);
	(void)rc;
}

static inline void pc_mutex_unlock(pc_mutex *m)
{
	int rc = pthread_mutex_unlock(m);
	assert(rc == 0);
	(void)rc;
}

/* The monotonic clock when the condition can use it, else the wall
 * clock. */
static inline int pc_cond_init(pc_cond *c)
{
	pthread_condattr_t attr;
	struct timespec probe;

	if (clock_gettime(CLOCK_MONOTONIC, &probe) == 0 &&
	    pthread_condattr_init(&attr) == 0) {
		int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		if (rc == 0)
			rc = pthread_cond_init(&c->cv, &attr);
		pthread_condattr_destroy(&attr);
		if (rc == 0) {
			c->clock = CLOCK_MONOTONIC;
			return 0;
		}
	}
	c->clock = CLOCK_REALTIME;
	return pthread_cond_init(&c->cv, NULL);
}

static inline void pc_cond_destroy(pc_cond *c)
{
	int rc = pthread_cond_destroy(&c->cv);
	assert(rc == 0);
	(void)rc;
}

static inline void pc_cond_signal(pc_cond *c)
{
	int rc = pthread_cond_signal(&c->cv);
	assert(rc == 0);
	(void)rc;
}

static inline void pc_cond_broadcast(pc_cond *c)
{
	int rc = pthread_cond_broadcast(&c->cv);
	assert(rc == 0);
	(void)rc;
}

static inline void pc_cond_wait(pc_cond *c, pc_mutex *m)
{
	int rc = pthread_cond_wait(&c->cv, m);
	assert(rc == 0);
	(void)rc;
}

/* Zero when woken, ETIMEDOUT when the deadline passed. */
static inline int pc_cond_timedwait(pc_cond *c, pc_mutex *m,
				    const pc_deadline *when)
{
	int rc = pthread_cond_timedwait(&c->cv, m, when);
	assert(rc == 0 || rc == ETIMEDOUT);
	return rc;
}

/* @ms milliseconds from now, on the clock of @c. */
static inline void pc_deadline_in(pc_deadline *when, const pc_cond *c,
				  unsigned ms)
{
	int rc = clock_gettime(c->clock, when);
	assert(rc == 0);
	(void)rc;
	when->tv_sec += ms / 1000;
	when->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (when->tv_nsec >= 1000000000L) {
		when->tv_nsec -= 1000000000L;
		when->tv_sec++;
	}
}

#define SLOTS 8
#define PRODUCERS 3
#define CONSUMERS 3
#define PER_PRODUCER 4000

struct ring {
	pc_mutex mutex;
	pc_cond not_empty;
	pc_cond not_full;
	pc_cond never; /* nobody signals it */
	int slot[SLOTS];
	unsigned head, count;
	int producers_left;
	long taken, sum;
	long timeouts;
};

static struct ring R;

static void *producer(void *arg)
{
	int base = (int)(long)arg * PER_PRODUCER;

	for (int i = 0; i < PER_PRODUCER; i++) {
		pc_mutex_lock(&R.mutex);
		while (R.count == SLOTS)
			pc_cond_wait(&R.not_full, &R.mutex);
		R.slot[(R.head + R.count) % SLOTS] = base + i;
		R.count++;
		pc_cond_signal(&R.not_empty);
		pc_mutex_unlock(&R.mutex);
	}
	pc_mutex_lock(&R.mutex);
	R.producers_left--;
	pc_cond_broadcast(&R.not_empty);
	pc_mutex_unlock(&R.mutex);
	return NULL;
}

static void *consumer(void *arg)
{
	long mine = 0;
	pc_deadline when;

	(void)arg;
	for (;;) {
		int value = 0, more = 1;

		pc_mutex_lock(&R.mutex);
		pc_deadline_in(&when, &R.not_empty, 2);
		while (R.count == 0 && R.producers_left > 0) {
			if (pc_cond_timedwait(&R.not_empty, &R.mutex, &when) ==
			    ETIMEDOUT) {
				R.timeouts++;
				pc_deadline_in(&when, &R.not_empty, 2);
			}
		}
		if (R.count == 0) {
			more = 0;
		} else {
			value = R.slot[R.head];
			R.head = (R.head + 1) % SLOTS;
			R.count--;
			R.taken++;
			R.sum += value;
			pc_cond_signal(&R.not_full);
		}
		pc_mutex_unlock(&R.mutex);
		if (!more)
			break;
		mine++;
	}
	return (void *)mine;
}

static double monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A wait of 150 ms on a condition nobody signals: ETIMEDOUT after about
 * that long.  A deadline read on a clock the condition does not use
 * ends at once (or never). */
static int deadline_honoured(void)
{
	pc_deadline when;
	double t0, waited;
	int rc = 0;

	pc_mutex_lock(&R.mutex);
	t0 = monotonic_ms();
	pc_deadline_in(&when, &R.never, 150);
	while (rc != ETIMEDOUT)
		rc = pc_cond_timedwait(&R.never, &R.mutex, &when);
	waited = monotonic_ms() - t0;
	pc_mutex_unlock(&R.mutex);
	if (waited < 140.0 || waited > 10000.0) {
		printf("timed wait of 150 ms took %.0f ms\n", waited);
		return 0;
	}
	return 1;
}

int main(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long per_consumer = 0, want_sum = 0;
	int ok;

	if (pc_mutex_init(&R.mutex) || pc_cond_init(&R.not_empty) ||
	    pc_cond_init(&R.not_full) || pc_cond_init(&R.never))
		return 2;
	if (R.never.clock != CLOCK_MONOTONIC) {
		printf("no CLOCK_MONOTONIC condition here\n");
		return 2;
	}
	R.producers_left = PRODUCERS;
	for (long i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++) {
		void *n;

		pthread_join(c[i], &n);
		per_consumer += (long)n;
	}
	for (long v = 0; v < PRODUCERS * PER_PRODUCER; v++)
		want_sum += v;
	ok = deadline_honoured();
	pc_cond_destroy(&R.never);
	pc_cond_destroy(&R.not_full);
	pc_cond_destroy(&R.not_empty);
	pc_mutex_destroy(&R.mutex);
	printf("taken %ld (consumers %ld) sum %s, deadline %s\n", R.taken,
	       per_consumer, R.sum == want_sum ? "right" : "WRONG",
	       ok ? "honoured" : "WRONG");
	return R.taken == PRODUCERS * PER_PRODUCER &&
			       per_consumer == R.taken && R.sum == want_sum &&
			       ok ?
		       0 :
		       1;
}
