/* SPDX-License-Identifier: MIT */
/*
 * Locks initialised through the program's own wrappers (issue #16): every
 * pthread_mutex_init() call is in app_mutex_init() (prof_wrapwrap.c) or
 * the inline app_mutex_init_inline() (prof_wrapinit.h), so the init call
 * site is the same for all of them.  rcl-prof must name each lock by the
 * caller of the wrapper, and rank them:
 *  - table.lock (make_table): WORKERS threads take it through
 *    app_mutex_lock() and compute inside (1 ms on the CPU), each always
 *    waiting for it or holding it: the hot lock, "RCL recommended" (a
 *    section that slept instead would be blocked off CPU, "no");
 *  - stats.lock (make_stats): a short uncontended hold after each table
 *    hold;
 *  - logq.lock (make_logq, inline wrapper): taken once per thread;
 *  - later.lock: never initialised (a copy of PTHREAD_MUTEX_INITIALIZER
 *    in heap memory), first used in touch_later() through
 *    app_mutex_lock(): named by touch_later's call.
 * t_wrapinit.sh finds the lines by the INIT: markers.
 */
#define _GNU_SOURCE
#include "prof_wrapinit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WORKERS = 4, ROUNDS = 60 };

struct table {
	app_mutex_t lock;
	long hits;
};
struct stats { /* not table's layout: make_stats is not make_table */
	long rounds;
	app_mutex_t lock;
};
struct logq {
	app_mutex_t lock;
	int lines;
};
struct later {
	app_mutex_t lock;
	int n;
};

static struct table *table;
static struct stats *stats;
static struct logq *logq;
static struct later *later;

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

static struct table *make_table(void)
{
	struct table *t = xmalloc(sizeof(*t));

	if (app_mutex_init(&t->lock)) /* INIT:table */
		abort();
	return t;
}

static struct stats *make_stats(void)
{
	struct stats *s = xmalloc(sizeof(*s));

	if (app_mutex_init(&s->lock)) /* INIT:stats */
		abort();
	return s;
}

static struct logq *make_logq(void)
{
	struct logq *q = xmalloc(sizeof(*q));

	if (app_mutex_init_inline(&q->lock)) /* INIT:logq */
		abort();
	return q;
}

static __attribute__((noinline)) void touch_later(void)
{
	app_mutex_lock(&later->lock); /* INIT:later */
	later->n++;
	app_mutex_unlock(&later->lock);
}

/* Run on the CPU for @us microseconds (preemptions included). */
static void compute_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L +
		       (t.tv_nsec - t0.tv_nsec) / 1000 <
	       us);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		app_mutex_lock(&table->lock);
		table->hits++;
		compute_us(1000);
		app_mutex_unlock(&table->lock);
		app_mutex_lock(&stats->lock);
		stats->rounds++;
		app_mutex_unlock(&stats->lock);
	}
	app_mutex_lock(&logq->lock);
	logq->lines++;
	app_mutex_unlock(&logq->lock);
	touch_later();
	return NULL;
}

int main(void)
{
	static const pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
	pthread_t th[WORKERS];

	table = make_table();
	stats = make_stats();
	logq = make_logq();
	later = xmalloc(sizeof(*later));
	memcpy(&later->lock, &init, sizeof(init));
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			abort();
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	printf("hits %ld rounds %ld lines %d later %d\n", table->hits,
	       stats->rounds, logq->lines, later->n);
	return table->hits == WORKERS * ROUNDS ? 0 : 1;
}
