/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for blame shifting (Tallent et al., PPoPP'10): a holder
 * keeps `lk` for ~100 ms in hold_long() while 3 threads wait, then for
 * ~10 ms in hold_short() while 1 waits.  The waiting time each hold caused
 * is measured here (overlap of each waiter's blocking interval with the
 * hold) and printed as JSON; t_blame.sh checks that rcl-prof charges it to
 * the two release sites.  Each hold lasts its ~100 or ~10 ms from the
 * moment the holder has seen all its waiters blocked in the lock call
 * (prof_blocked.h), so on a loaded machine too every waiter waits.
 */
#define _GNU_SOURCE
#include "prof_blocked.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ready;
static double t_release; /* when the holder called unlock */
static double t_wait[3]; /* when each waiter called lock */
/* Each waiter's thread id, published just before its lock call: release,
 * paired with the acquire load in all_blocked(). */
static _Atomic pid_t tid[3];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void nap_us(long us)
{
	struct timespec t = {us / 1000000, (us % 1000000) * 1000L};

	nanosleep(&t, NULL);
}

static void *waiter(void *arg)
{
	int i = (int)(long)arg;

	pthread_barrier_wait(&ready);
	atomic_store_explicit(&tid[i], prof_gettid(), memory_order_release);
	t_wait[i] = now();
	pthread_mutex_lock(&lk);
	pthread_mutex_unlock(&lk);
	return NULL;
}

/* Returns once each of the first @waiters waiters is blocked in its
 * lock call. */
static void all_blocked(int waiters)
{
	for (int i = 0; i < waiters; i++) {
		pid_t t;

		while (!(t = atomic_load_explicit(&tid[i],
						  memory_order_acquire)) ||
		       !prof_blocked(t))
			nap_us(200);
	}
}

/* noinline: each must be its own release site */
__attribute__((noinline)) static void hold_long(int waiters)
{
	pthread_t t[3];

	pthread_mutex_lock(&lk);
	for (long i = 0; i < waiters; i++)
		pthread_create(&t[i], NULL, waiter, (void *)i);
	pthread_barrier_wait(&ready);
	all_blocked(waiters);
	nap_us(100000);
	t_release = now();
	pthread_mutex_unlock(&lk);
	for (int i = 0; i < waiters; i++)
		pthread_join(t[i], NULL);
}

__attribute__((noinline)) static void hold_short(void)
{
	pthread_t t;

	pthread_mutex_lock(&lk);
	pthread_create(&t, NULL, waiter, (void *)0L);
	pthread_barrier_wait(&ready);
	all_blocked(1);
	nap_us(10000);
	t_release = now();
	pthread_mutex_unlock(&lk);
	pthread_join(t, NULL);
}

static double caused(int waiters)
{
	double s = 0;

	for (int i = 0; i < waiters; i++)
		s += t_release > t_wait[i] ? t_release - t_wait[i] : 0;
	return s;
}

int main(void)
{
	double b_long, b_short;

	pthread_barrier_init(&ready, NULL, 4);
	hold_long(3);
	b_long = caused(3);
	pthread_barrier_destroy(&ready);
	atomic_store_explicit(&tid[0], 0, memory_order_relaxed);
	pthread_barrier_init(&ready, NULL, 2);
	hold_short();
	b_short = caused(1);
	pthread_barrier_destroy(&ready);
	printf("{\"hold_long_ms\": %.3f, \"hold_short_ms\": %.3f}\n",
	       b_long * 1e3, b_short * 1e3);
	return 0;
}
