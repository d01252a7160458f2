/* SPDX-License-Identifier: MIT */
/*
 * Tests specific to the combining locks (fc, ccsynch, dsmsynch): sections
 * really run on a combiner thread for other threads; each caller gets its
 * own section's result; a CC-Synch / DSM-Synch combiner never runs more
 * than MAX_COMBINER_CS = 3 x CPUs sections in a pass; a section that
 * waits on a condition variable while a combiner runs it for another
 * thread completes, and its function is afterwards left to its owner.
 *
 * Scenarios that need a queue behind a combiner make the first section
 * sleep until the other threads have called liblock_exec, plus a margin.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

static const char *const algos[] = {"fc", "ccsynch", "dsmsynch"};
#define NALGOS ((int)(sizeof(algos) / sizeof(algos[0])))
#define MARGIN_US 100000 /* lets enqueued threads reach their wait */

static void init_lock(liblock_lock_t *l, const char *name)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_int_eq(liblock_init(l, &attr), 0);
	ck_assert_str_eq(liblock_lock_algorithm(l), name);
}

/* ---- a blocked first section builds a queue ---------------------------- */

struct queue_ctx {
	liblock_lock_t lock;
	liblock_lock_t *use; /* the lock the threads use: &lock, or another */
	atomic_int first_inside; /* the blocking section started */
	atomic_int arrived;	 /* threads about to call liblock_exec */
	int expect;		 /* arrivals the blocking section waits for */
};

struct who {
	struct queue_ctx *q;
	pthread_t caller, runner;
	int order; /* arrival rank, 0 = the blocking thread */
};

static void *block_cs(void *arg)
{
	struct who *w = arg;

	w->runner = pthread_self();
	atomic_store(&w->q->first_inside, 1);
	while (atomic_load(&w->q->arrived) < w->q->expect)
		usleep(1000);
	usleep(MARGIN_US);
	return w;
}

static void *mark_cs(void *arg)
{
	struct who *w = arg;

	w->runner = pthread_self();
	return w;
}

static void *queue_thread(void *arg)
{
	struct who *w = arg;

	w->caller = pthread_self();
	if (w->order == 0) {
		ck_assert_ptr_eq(liblock_exec(w->q->use, block_cs, w), w);
		return NULL;
	}
	/* arrive in rank order, each after the previous one queued */
	while (!atomic_load(&w->q->first_inside) ||
	       atomic_load(&w->q->arrived) != w->order - 1)
		usleep(1000);
	usleep(MARGIN_US / 5);
	atomic_fetch_add(&w->q->arrived, 1);
	ck_assert_ptr_eq(liblock_exec(w->q->use, mark_cs, w), w);
	return NULL;
}

START_TEST(sections_run_on_the_combiner)
{
	enum { N = 4 };
	struct queue_ctx *q = calloc(1, sizeof(*q));
	struct who w[N];
	int foreign = 0;

	ck_assert_ptr_nonnull(q);
	init_lock(&q->lock, algos[_i]);
	q->use = &q->lock;
	q->expect = N - 1;
	for (int i = 0; i < N; i++)
		w[i] = (struct who){.q = q, .order = i};
	run_threads(N, queue_thread, w, sizeof(w[0]));
	for (int i = 1; i < N; i++)
		if (!pthread_equal(w[i].runner, w[i].caller)) {
			foreign++;
			/* the blocked thread was the combiner */
			ck_assert(pthread_equal(w[i].runner, w[0].caller));
		}
	ck_assert_msg(foreign > 0, "%s: no section ran on a combiner",
		      algos[_i]);
	ck_assert_int_eq(liblock_destroy(&q->lock), 0);
	free(q);
}
END_TEST

/* ---- results reach their callers; passes stay bounded ------------------ */

#define LOG_MAX 200000

struct log_ctx {
	liblock_lock_t lock;
	int n; /* entries used, written inside sections */
	struct {
		pthread_t caller, runner;
	} log[LOG_MAX];
	int iterations;
	pthread_barrier_t start;
};

struct req {
	struct log_ctx *c;
	pthread_t self;
	uintptr_t value;
};

static void *log_cs(void *arg)
{
	struct req *r = arg;
	struct log_ctx *c = r->c;

	/* long enough (several microseconds) for queues to form */
	for (volatile int spin = 0; spin < 5000; spin++)
		;
	if (c->n < LOG_MAX) {
		c->log[c->n].caller = r->self;
		c->log[c->n].runner = pthread_self();
		c->n++;
	}
	return (void *)(r->value * 2 + 1);
}

static void *log_worker(void *arg)
{
	struct req *r = arg;

	r->self = pthread_self();
	pthread_barrier_wait(&r->c->start);
	for (int i = 0; i < r->c->iterations; i++) {
		uintptr_t v = r->value;

		ck_assert_ptr_eq(liblock_exec(&r->c->lock, log_cs, r),
				 (void *)(v * 2 + 1));
		r->value += 1000; /* unique per (thread, iteration) */
	}
	return NULL;
}

/* Longest run of sections one thread ran for others with none of its own
 * in between: in CC-Synch and DSM-Synch, a pass starts with the
 * combiner's own section, so such a run lies inside one pass. */
static int longest_foreign_run(const struct log_ctx *c, int *foreign)
{
	int best = 0, run = 0;

	*foreign = 0;
	for (int i = 0; i < c->n; i++) {
		bool mine = pthread_equal(c->log[i].caller, c->log[i].runner);

		*foreign += !mine;
		if (i > 0 &&
		    !pthread_equal(c->log[i].runner, c->log[i - 1].runner))
			run = 0;
		run = mine ? 0 : run + 1;
		if (run > best)
			best = run;
	}
	return best;
}

START_TEST(results_and_pass_bound)
{
	enum { THREADS = 16 };
	struct log_ctx *c = calloc(1, sizeof(*c));
	struct req r[THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int max_cs = 3 * (int)cpus, foreign, best;

	ck_assert_ptr_nonnull(c);
	init_lock(&c->lock, algos[_i]);
	c->iterations = 500;
	ck_assert_int_eq(pthread_barrier_init(&c->start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		r[i] = (struct req){.c = c, .value = (uintptr_t)i};
	run_threads(THREADS, log_worker, r, sizeof(r[0]));
	ck_assert_int_eq(c->n, THREADS * c->iterations);
	best = longest_foreign_run(c, &foreign);
	printf("# %s: %d of %d sections ran on a combiner, longest run %d "
	       "(MAX_COMBINER_CS %d)\n",
	       algos[_i], foreign, c->n, best, max_cs);
	if (strcmp(algos[_i], "fc") != 0)
		ck_assert_int_le(best, max_cs - 1);
	else
		ck_assert_int_le(best, 2 * (THREADS - 1)); /* one scan a pass */
	ck_assert_int_eq(pthread_barrier_destroy(&c->start), 0);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

/* ---- a combined section waits on a condition variable ------------------ */

struct cw_ctx {
	struct who w; /* w.runner: thread that started the section */
	liblock_cond_t cond;
	int go;
	atomic_int waiting;
	pthread_t runner_after; /* thread that finished it */
};

static void *wait_body(struct cw_ctx *c)
{
	c->w.runner = pthread_self();
	while (!c->go) {
		atomic_store(&c->waiting, 1);
		ck_assert_int_eq(liblock_cond_wait(&c->cond, &c->w.q->lock), 0);
	}
	c->runner_after = pthread_self();
	return (void *)0x5151;
}

/* One function per algorithm: a function that waited once is never
 * combined again, in this process, whatever the lock. */
static void *wait_cs_0(void *arg)
{
	return wait_body(arg);
}
static void *wait_cs_1(void *arg)
{
	return wait_body(arg);
}
static void *wait_cs_2(void *arg)
{
	return wait_body(arg);
}
static liblock_fn_t const wait_cs[NALGOS] = {wait_cs_0, wait_cs_1, wait_cs_2};

struct cw_thread {
	struct cw_ctx *c;
	struct who *w; /* blocking thread (order 0) or trailing thread */
	liblock_fn_t fn;
};

static void *go_cs(void *arg)
{
	struct cw_ctx *c = arg;

	c->go = 1;
	ck_assert_int_eq(liblock_cond_signal(&c->cond), 0);
	return NULL;
}

static void *cw_waiter(void *arg)
{
	struct cw_thread *t = arg;
	struct cw_ctx *c = t->c;

	c->w.caller = pthread_self();
	while (!atomic_load(&c->w.q->first_inside))
		usleep(1000);
	usleep(MARGIN_US / 5);
	atomic_fetch_add(&c->w.q->arrived, 1);
	ck_assert_ptr_eq(liblock_exec(&c->w.q->lock, t->fn, c), (void *)0x5151);
	return NULL;
}

/* Thread 0 blocks the lock, the waiter queues, a third thread queues
 * behind it (DSM-Synch never runs the last queued section itself). */
static void run_cw(struct queue_ctx *q, struct cw_ctx *c, liblock_fn_t fn,
		   bool signal)
{
	struct who w0 = {.q = q, .order = 0}, w2 = {.q = q, .order = 2};
	struct cw_thread t = {c, NULL, fn};
	pthread_t th[3];

	atomic_store(&q->first_inside, 0);
	atomic_store(&q->arrived, 0);
	q->expect = 2;
	c->w.q = q;
	ck_assert_int_eq(pthread_create(&th[0], NULL, queue_thread, &w0), 0);
	ck_assert_int_eq(pthread_create(&th[1], NULL, cw_waiter, &t), 0);
	ck_assert_int_eq(pthread_create(&th[2], NULL, queue_thread, &w2), 0);
	if (signal) {
		while (!atomic_load(&c->waiting))
			usleep(1000);
		liblock_exec(&q->lock, go_cs, c);
	}
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	c->w.caller = th[1];
	c->w.order = (int)pthread_equal(c->w.runner, w0.caller); /* combined? */
}

START_TEST(cond_wait_in_combined_section)
{
	struct queue_ctx *q = calloc(1, sizeof(*q));
	struct cw_ctx *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(c);
	init_lock(&q->lock, algos[_i]);
	q->use = &q->lock;
	ck_assert_int_eq(liblock_cond_init(&c->cond, NULL), 0);
	/* 1: the blocked thread combines the waiter's section, which waits,
	 * is signalled and finishes on that same thread */
	run_cw(q, c, wait_cs[_i], true);
	ck_assert_msg(c->w.order == 1, "%s: waiting section not combined",
		      algos[_i]);
	ck_assert(pthread_equal(c->runner_after, c->w.runner));
	/* 2: the function waited once: now its owner runs it */
	c->go = 1;
	atomic_store(&c->waiting, 0);
	run_cw(q, c, wait_cs[_i], false);
	ck_assert(pthread_equal(c->w.runner, c->w.caller));
	ck_assert_int_eq(liblock_cond_destroy(&c->cond), 0);
	ck_assert_int_eq(liblock_destroy(&q->lock), 0);
	free(c);
	free(q);
}
END_TEST

/* ---- many first waits: detached passes under load ----------------------- */

/* Every function below waits (timed: nobody needs to signal), so the
 * first time a combiner runs one for another thread, it detaches its pass
 * while others queue; checked for mutual exclusion and exact counts. */
struct tw_ctx {
	liblock_lock_t lock;
	liblock_cond_t cond;
	atomic_int inside, overlaps;
	uint64_t count;
	int timeouts;
	int combined_waits; /* waits by a combiner for another thread */
};

struct tw_req {
	struct tw_ctx *t;
	pthread_t caller;
};

static void tw_enter(struct tw_ctx *t)
{
	if (atomic_fetch_add(&t->inside, 1) != 0)
		atomic_fetch_add(&t->overlaps, 1);
}

static void *tw_body(struct tw_req *r)
{
	struct tw_ctx *t = r->t;
	struct timespec dl;

	tw_enter(t);
	t->count++;
	t->combined_waits += !pthread_equal(r->caller, pthread_self());
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 200000;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	atomic_fetch_sub(&t->inside, 1);
	int rc = liblock_cond_timedwait(&t->cond, &t->lock, &dl);
	ck_assert(rc == 0 || rc == ETIMEDOUT);
	tw_enter(t); /* the lock is ours again */
	t->timeouts += rc == ETIMEDOUT;
	t->count++;
	if ((t->count & 7) == 0)
		liblock_cond_broadcast(&t->cond);
	atomic_fetch_sub(&t->inside, 1);
	return r;
}

/* Macro-generated section functions, kept one per line. */
/* clang-format off */
#define TW1(n) \
	static void *tw_##n(void *a) { return tw_body(a); }
#define TW8(n) \
	TW1(n##0) TW1(n##1) TW1(n##2) TW1(n##3) \
	TW1(n##4) TW1(n##5) TW1(n##6) TW1(n##7)
TW8(1)
TW8(2)
TW8(3)
TW8(4)
TW8(5)
TW8(6)
TW8(7)
TW8(8)
#define TWL(n) \
	tw_##n##0, tw_##n##1, tw_##n##2, tw_##n##3, \
	tw_##n##4, tw_##n##5, tw_##n##6, tw_##n##7
static liblock_fn_t const tw_fns[] = {
	TWL(1), TWL(2), TWL(3), TWL(4), TWL(5), TWL(6), TWL(7), TWL(8),
};
/* clang-format on */
#define TW_FNS ((int)(sizeof(tw_fns) / sizeof(tw_fns[0])))

struct tw_thread {
	struct tw_req r;
	struct queue_ctx *q; /* shares the lock of the tw_ctx */
	liblock_fn_t fn;
};

static void *tw_worker(void *arg)
{
	struct tw_thread *w = arg;

	w->r.caller = pthread_self();
	while (!atomic_load(&w->q->first_inside))
		usleep(1000);
	atomic_fetch_add(&w->q->arrived, 1);
	ck_assert_ptr_eq(liblock_exec(&w->r.t->lock, w->fn, &w->r), &w->r);
	return NULL;
}

/* Rounds: a blocked section builds a queue of THREADS sections of fresh
 * functions; each combiner that runs one for another thread detaches. */
START_TEST(many_detached_passes)
{
	enum { THREADS = 7, ROUNDS = TW_FNS / THREADS };
	struct tw_ctx *t = calloc(1, sizeof(*t));
	struct queue_ctx *q = calloc(1, sizeof(*q));
	struct tw_thread w[THREADS];
	struct who w0;
	pthread_t th[THREADS + 1];

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(q);
	init_lock(&t->lock, algos[_i]);
	ck_assert_int_eq(liblock_cond_init(&t->cond, NULL), 0);
	q->expect = THREADS;
	q->use = &t->lock;
	for (int round = 0; round < ROUNDS; round++) {
		atomic_store(&q->first_inside, 0);
		atomic_store(&q->arrived, 0);
		w0 = (struct who){.q = q, .order = 0};
		ck_assert_int_eq(
			pthread_create(&th[0], NULL, queue_thread, &w0), 0);
		for (int i = 0; i < THREADS; i++) {
			w[i] = (struct tw_thread){
				{t, 0}, q, tw_fns[round * THREADS + i]};
			ck_assert_int_eq(pthread_create(&th[i + 1], NULL,
							tw_worker, &w[i]),
					 0);
		}
		for (int i = 0; i <= THREADS; i++)
			ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	}
	ck_assert_int_eq(atomic_load(&t->overlaps), 0);
	ck_assert_uint_eq(t->count, 2u * THREADS * ROUNDS);
	printf("# %s: %d of %d waits by a combiner for another thread\n",
	       algos[_i], t->combined_waits, THREADS * ROUNDS);
	ck_assert_int_gt(t->combined_waits, 0);
	ck_assert_int_eq(liblock_cond_destroy(&t->cond), 0);
	ck_assert_int_eq(liblock_destroy(&t->lock), 0);
	free(q);
	free(t);
}
END_TEST

/* ---- lock mode mixed with combined sections ----------------------------- */

struct mix_ctx {
	liblock_lock_t lock;
	liblock_cond_t cond;
	atomic_int inside, overlaps;
	uint64_t count;
	int iterations;
};

static void *mix_cs(void *arg)
{
	struct mix_ctx *m = arg;

	if (atomic_fetch_add(&m->inside, 1) != 0)
		atomic_fetch_add(&m->overlaps, 1);
	m->count++;
	atomic_fetch_sub(&m->inside, 1);
	return m;
}

static void *mix_worker(void *arg)
{
	struct mix_ctx *m = *(struct mix_ctx **)arg;
	int lock_mode = (int)(((struct mix_ctx **)arg)[1] != NULL);

	for (int i = 0; i < m->iterations; i++) {
		if (lock_mode) {
			ck_assert_int_eq(liblock_lock(&m->lock), 0);
			mix_cs(m);
			ck_assert_int_eq(liblock_unlock(&m->lock), 0);
		} else {
			ck_assert_ptr_eq(liblock_exec(&m->lock, mix_cs, m), m);
		}
	}
	return NULL;
}

/* fc and dsmsynch: lock/unlock and liblock_exec on one lock exclude each
 * other; a timed wait in lock mode times out and keeps the lock; a wait
 * outside any section is refused.  ccsynch: no lock mode (ENOTSUP). */
START_TEST(lock_mode)
{
	enum { THREADS = 4 };
	struct mix_ctx *m = calloc(1, sizeof(*m));
	struct mix_ctx *args[THREADS][2];
	struct timespec dl;

	ck_assert_ptr_nonnull(m);
	init_lock(&m->lock, algos[_i]);
	ck_assert_int_eq(liblock_cond_init(&m->cond, NULL), 0);
	ck_assert_int_eq(liblock_cond_wait(&m->cond, &m->lock), EPERM);
	if (liblock_lock(&m->lock) == ENOTSUP) {
		ck_assert_str_eq(algos[_i], "ccsynch");
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec = 0; /* in the past */
	ck_assert_int_eq(liblock_cond_timedwait(&m->cond, &m->lock, &dl),
			 ETIMEDOUT);
	ck_assert_int_eq(liblock_destroy(&m->lock), EBUSY);
	ck_assert_int_eq(liblock_unlock(&m->lock), 0);
	ck_assert_int_eq(liblock_unlock(&m->lock), EPERM);
	m->iterations = 5000;
	for (int i = 0; i < THREADS; i++) {
		args[i][0] = m;
		args[i][1] = i % 2 ? m : NULL;
	}
	run_threads(THREADS, mix_worker, args, sizeof(args[0]));
	ck_assert_int_eq(atomic_load(&m->overlaps), 0);
	ck_assert_uint_eq(m->count, (uint64_t)THREADS * m->iterations);
out:
	ck_assert_int_eq(liblock_cond_destroy(&m->cond), 0);
	ck_assert_int_eq(liblock_destroy(&m->lock), 0);
	free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("combining locks");
	const struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{"sections_run_on_the_combiner", sections_run_on_the_combiner},
		{"results_and_pass_bound", results_and_pass_bound},
		{"cond_wait_in_combined_section",
		 cond_wait_in_combined_section},
		{"many_detached_passes", many_detached_passes},
		{"lock_mode", lock_mode},
	};
	SRunner *sr;
	int failed;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		TCase *tc = tcase_create(tests[i].name);

		tcase_set_timeout(tc, 60);
		tcase_add_loop_test(tc, tests[i].test, 0, NALGOS);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
