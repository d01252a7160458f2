/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for rcl-prof: a program whose locks have known shapes, that
 * measures its own "% of thread time in critical sections" with
 * clock_gettime and prints it as JSON on stdout.  t_truth.sh runs it under
 * rcl-prof and compares.
 *
 * Holds sleep instead of spinning, so the shares do not depend on how busy
 * the (shared, 2-CPU) machine is:
 *  - g_heavy (global, static initialiser): HEAVY threads lock it, sleep
 *    inside, unlock, again: each is always waiting for it or holding it;
 *  - buckets (NBUCKET heap mutexes, one init site): MEDIUM threads hold
 *    one for ~3/4 of their time;
 *  - private mutexes (one per MEDIUM thread, one init site): many short
 *    uncontended acquisitions between two bucket holds ("hot");
 *  - g_cold: locked once by main;
 *  - q_lock + q_cond: a producer and a consumer (condition variable).
 * Thread time = sum of thread lifetimes, main's minus its pthread_join.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HEAVY = 7, MEDIUM = 3, NBUCKET = 8, HOT_PER_ROUND = 100, ITEMS = 20 };

static pthread_mutex_t g_heavy = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_cold = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t *buckets;
static int q_items, q_done;
static double run_s = 0.4;

/* Per-thread truth, summed by main after the joins. */
struct truth {
	double life, heavy_cs, bucket_cs;
	long heavy_acq, bucket_acq, hot_acq, q_acq, q_waits, q_signals;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void nap(long us)
{
	struct timespec t = {0, us * 1000};

	nanosleep(&t, NULL);
}

static void check(int rc, const char *what)
{
	if (rc != 0) {
		fprintf(stderr, "prof_truth: %s: %s\n", what, strerror(rc));
		exit(1);
	}
}

static void *heavy(void *arg)
{
	struct truth *t = arg;
	double start = now(), end = start + run_s, t0;

	while ((t0 = now()) < end) {
		check(pthread_mutex_lock(&g_heavy), "lock g_heavy");
		nap(200);
		check(pthread_mutex_unlock(&g_heavy), "unlock g_heavy");
		t->heavy_cs += now() - t0;
		t->heavy_acq++;
	}
	t->life = now() - start;
	return NULL;
}

static void *medium(void *arg)
{
	struct truth *t = arg;
	double start = now(), end = start + run_s, t0;
	pthread_mutex_t *priv = malloc(sizeof(*priv));
	unsigned i = 0;

	if (!priv)
		abort();
	check(pthread_mutex_init(priv, NULL), "init private");
	while ((t0 = now()) < end) {
		pthread_mutex_t *b = &buckets[i++ % NBUCKET];

		check(pthread_mutex_lock(b), "lock bucket");
		nap(300);
		check(pthread_mutex_unlock(b), "unlock bucket");
		t->bucket_cs += now() - t0;
		t->bucket_acq++;
		for (int k = 0; k < HOT_PER_ROUND; k++) {
			check(pthread_mutex_lock(priv), "lock private");
			check(pthread_mutex_unlock(priv), "unlock private");
		}
		t->hot_acq += HOT_PER_ROUND;
		nap(100);
	}
	check(pthread_mutex_destroy(priv), "destroy private");
	free(priv);
	t->life = now() - start;
	return NULL;
}

static void *producer(void *arg)
{
	struct truth *t = arg;
	double start = now();

	for (int i = 0; i < ITEMS; i++) {
		nap(1000);
		check(pthread_mutex_lock(&q_lock), "lock q");
		q_items++;
		q_done = i == ITEMS - 1;
		check(pthread_cond_signal(&q_cond), "signal");
		check(pthread_mutex_unlock(&q_lock), "unlock q");
		t->q_acq++;
		t->q_signals++;
	}
	t->life = now() - start;
	return NULL;
}

static void *consumer(void *arg)
{
	struct truth *t = arg;
	double start = now();
	int got = 0;

	while (got < ITEMS) {
		check(pthread_mutex_lock(&q_lock), "lock q");
		t->q_acq++;
		while (q_items == 0) {
			check(pthread_cond_wait(&q_cond, &q_lock), "wait");
			t->q_acq++; /* the wait re-acquires the mutex */
			t->q_waits++;
		}
		got += q_items;
		q_items = 0;
		check(pthread_mutex_unlock(&q_lock), "unlock q");
	}
	t->life = now() - start;
	return NULL;
}

static void print_truth(const struct truth *sum, double main_life)
{
	double tt = sum->life + main_life;

	printf("{\"thread_time_s\": %.6f,\n", tt);
	printf(" \"g_heavy\": {\"pct\": %.3f, \"acq\": %ld, \"instances\": "
	       "1},\n",
	       100 * sum->heavy_cs / tt, sum->heavy_acq);
	printf(" \"bucket\": {\"pct\": %.3f, \"acq\": %ld, \"instances\": "
	       "%d},\n",
	       100 * sum->bucket_cs / tt, sum->bucket_acq, NBUCKET);
	printf(" \"private\": {\"acq\": %ld, \"instances\": %d},\n",
	       sum->hot_acq, MEDIUM);
	printf(" \"g_cold\": {\"acq\": 1, \"instances\": 1},\n");
	printf(" \"q_lock\": {\"acq\": %ld, \"instances\": 1, \"waits\": %ld, "
	       "\"signals\": %ld},\n",
	       sum->q_acq, sum->q_waits, sum->q_signals);
	printf(" \"threads\": %d}\n", HEAVY + MEDIUM + 3);
}

int main(int argc, char **argv)
{
	enum { N = HEAVY + MEDIUM + 2 };
	struct truth t[N], sum;
	pthread_t th[N];
	double start = now(), joined;

	if (argc > 1)
		run_s = atof(argv[1]);
	memset(t, 0, sizeof(t));
	buckets = calloc(NBUCKET, sizeof(*buckets));
	if (!buckets)
		abort();
	for (int i = 0; i < NBUCKET; i++)
		check(pthread_mutex_init(&buckets[i], NULL), "init bucket");
	check(pthread_mutex_lock(&g_cold), "lock g_cold");
	check(pthread_mutex_unlock(&g_cold), "unlock g_cold");
	for (int i = 0; i < N; i++)
		check(pthread_create(&th[i], NULL,
				     i < HEAVY		  ? heavy
				     : i < HEAVY + MEDIUM ? medium
				     : i == N - 2	  ? producer
							  : consumer,
				     &t[i]),
		      "create");
	joined = now();
	for (int i = 0; i < N; i++)
		check(pthread_join(th[i], NULL), "join");
	joined = now() - joined;
	memset(&sum, 0, sizeof(sum));
	for (int i = 0; i < N; i++) {
		sum.life += t[i].life;
		sum.heavy_cs += t[i].heavy_cs;
		sum.bucket_cs += t[i].bucket_cs;
		sum.heavy_acq += t[i].heavy_acq;
		sum.bucket_acq += t[i].bucket_acq;
		sum.hot_acq += t[i].hot_acq;
		sum.q_acq += t[i].q_acq;
		sum.q_waits += t[i].q_waits;
		sum.q_signals += t[i].q_signals;
	}
	for (int i = 0; i < NBUCKET; i++)
		check(pthread_mutex_destroy(&buckets[i]), "destroy bucket");
	free(buckets);
	print_truth(&sum, now() - start - joined);
	return 0;
}
