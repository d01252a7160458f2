/* SPDX-License-Identifier: MIT */
/*
 * Behaviour corpus: a global mutex with a static initializer; sections
 * with inputs, outputs, an early return, a goto out, and a continue.
 * Deterministic: prints totals that do not depend on interleaving.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define ROUNDS 3000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static long hist[8];
static int capped;

/* Adds @v unless the total passed @cap; returns the new total or -1. */
static long add(long v, long cap)
{
	long now;

	pthread_mutex_lock(&m);
	if (total >= cap) {
		capped++;
		pthread_mutex_unlock(&m);
		return -1;
	}
	total += v;
	now = total;
	hist[v & 7]++;
	pthread_mutex_unlock(&m);
	return now;
}

static int count_even(int n)
{
	int i, even = 0;

	for (i = 0; i < n; i++) {
		long t;

		pthread_mutex_lock(&m);
		t = total;
		if (t & 1) {
			pthread_mutex_unlock(&m);
			continue;
		}
		even++;
		pthread_mutex_unlock(&m);
	}
	return even >= 0 ? 0 : 1;
}

static int check(long want)
{
	long got;

	pthread_mutex_lock(&m);
	got = total;
	if (got != want) {
		pthread_mutex_unlock(&m);
		goto bad;
	}
	pthread_mutex_unlock(&m);
	return 0;
bad:
	fprintf(stderr, "total %ld, want %ld\n", got, want);
	return 1;
}

static void *worker(void *arg)
{
	long id = (long)arg, i;

	for (i = 0; i < ROUNDS; i++)
		if (add(id + 1, 1L << 40) < 0)
			abort();
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long i, want = 0;
	int rc;

	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			return 2;
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++)
		want += (i + 1) * ROUNDS;
	if (add(1, 0) != -1 || count_even(10) != 0)
		return 1;
	printf("total %ld capped %d\n", total, capped);
	for (i = 0; i < 8; i++)
		printf("hist[%ld] = %ld\n", i, hist[i]);
	rc = check(want);
	pthread_mutex_destroy(&m);
	return rc;
}
