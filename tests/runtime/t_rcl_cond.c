/* SPDX-License-Identifier: MIT */
/*
 * Condition variables inside RCL critical sections: a waiting section
 * releases the lock without stalling its server; producer/consumer with
 * many waiters, broadcast, timed waits (timeout and wake-up in time),
 * and misuse outside a section.
 */
#include "rcl_test.h"

/* ---- producer / consumer, many waiters ------------------------------------
 */

#define QCAP 4
#define PRODUCERS 4
#define CONSUMERS 12
#define PER_PRODUCER 1500

struct pc {
	liblock_lock_t lock;
	liblock_cond_t not_empty, not_full;
	int q[QCAP], head, count, consumed, total;
	long sum;
};

struct op {
	struct pc *pc;
	int value;
};

static void *put_cs(void *arg)
{
	struct op *o = arg;
	struct pc *p = o->pc;

	while (p->count == QCAP)
		ck_assert_int_eq(liblock_cond_wait(&p->not_full, &p->lock), 0);
	p->q[(p->head + p->count) % QCAP] = o->value;
	p->count++;
	liblock_cond_signal(&p->not_empty);
	return NULL;
}

static void *take_cs(void *arg)
{
	struct op *o = arg;
	struct pc *p = o->pc;

	while (p->count == 0 && p->consumed < p->total)
		ck_assert_int_eq(liblock_cond_wait(&p->not_empty, &p->lock), 0);
	if (p->count == 0) {
		o->value = -1;
		return NULL;
	}
	o->value = p->q[p->head];
	p->head = (p->head + 1) % QCAP;
	p->count--;
	p->sum += o->value;
	if (++p->consumed == p->total)
		liblock_cond_broadcast(&p->not_empty);
	liblock_cond_signal(&p->not_full);
	return NULL;
}

static void *producer(void *arg)
{
	struct op o = {arg, 0};

	for (int i = 1; i <= PER_PRODUCER; i++) {
		o.value = i;
		liblock_exec(&o.pc->lock, put_cs, &o);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct op o = {arg, 0};

	do
		liblock_exec(&o.pc->lock, take_cs, &o);
	while (o.value != -1);
	return NULL;
}

START_TEST(producer_consumer_many_waiters)
{
	struct pc *p = calloc(1, sizeof(*p));
	pthread_t t[PRODUCERS + CONSUMERS];
	long n = PER_PRODUCER;

	ck_assert_ptr_nonnull(p);
	rt_init_rcl(&p->lock, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&p->not_empty, NULL), 0);
	ck_assert_int_eq(liblock_cond_init(&p->not_full, NULL), 0);
	p->total = PRODUCERS * PER_PRODUCER;
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
		rt_start(&t[i], i < PRODUCERS ? producer : consumer, p);
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
		rt_join(t[i], 50);
	ck_assert_int_eq(p->consumed, p->total);
	ck_assert_int_eq(p->sum, PRODUCERS * n * (n + 1) / 2);
	ck_assert_uint_ge(rt_stats(rcl_default_server()).cond_waits, 1);
	ck_assert_int_eq(liblock_cond_destroy(&p->not_empty), 0);
	ck_assert_int_eq(liblock_cond_destroy(&p->not_full), 0);
	ck_assert_int_eq(liblock_destroy(&p->lock), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(p);
}
END_TEST

/* ---- broadcast ------------------------------------------------------------
 */

#define WAITERS 20

struct bc {
	liblock_lock_t lock;
	liblock_cond_t cond;
	int go, waiting, woken;
};

static void *bc_wait_cs(void *arg)
{
	struct bc *b = arg;

	b->waiting++;
	while (!b->go)
		ck_assert_int_eq(liblock_cond_wait(&b->cond, &b->lock), 0);
	b->woken++;
	return NULL;
}

static void *bc_count_cs(void *arg)
{
	return (void *)(intptr_t)((struct bc *)arg)->waiting;
}

static void *bc_go_cs(void *arg)
{
	struct bc *b = arg;

	b->go = 1;
	ck_assert_int_eq(liblock_cond_broadcast(&b->cond), 0);
	return NULL;
}

static void *bc_waiter(void *arg)
{
	liblock_exec(&((struct bc *)arg)->lock, bc_wait_cs, arg);
	return NULL;
}

START_TEST(broadcast_wakes_all)
{
	struct bc *b = calloc(1, sizeof(*b));
	pthread_t t[WAITERS];
	double end = rt_now() + 20;

	ck_assert_ptr_nonnull(b);
	rt_init_rcl(&b->lock, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&b->cond, NULL), 0);
	for (int i = 0; i < WAITERS; i++)
		rt_start(&t[i], bc_waiter, b);
	/* every waiter is blocked inside a section; the server still runs
	 * this other section of the same lock */
	while ((intptr_t)liblock_exec(&b->lock, bc_count_cs, b) < WAITERS) {
		ck_assert(rt_now() < end);
		usleep(1000);
	}
	liblock_exec(&b->lock, bc_go_cs, b);
	for (int i = 0; i < WAITERS; i++)
		rt_join(t[i], 20);
	ck_assert_int_eq(b->woken, WAITERS);
	ck_assert_uint_ge(rt_stats(rcl_default_server()).threads_created,
			  WAITERS + 1);
	ck_assert_int_eq(liblock_cond_destroy(&b->cond), 0);
	ck_assert_int_eq(liblock_destroy(&b->lock), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(b);
}
END_TEST

/* ---- timed waits ----------------------------------------------------------
 */

struct tw {
	liblock_lock_t lock;
	liblock_cond_t cond;
	struct timespec deadline;
	atomic_int waiting;
	int flag, rc;
};

static void *tw_cs(void *arg)
{
	struct tw *w = arg;

	atomic_store(&w->waiting, 1);
	w->rc = 0;
	while (!w->flag && w->rc == 0)
		w->rc = liblock_cond_timedwait(&w->cond, &w->lock,
					       &w->deadline);
	return NULL;
}

static void *tw_signal_cs(void *arg)
{
	struct tw *w = arg;

	w->flag = 1;
	liblock_cond_signal(&w->cond);
	return NULL;
}

static void *tw_waiter(void *arg)
{
	liblock_exec(&((struct tw *)arg)->lock, tw_cs, arg);
	return NULL;
}

static void deadline_in(struct timespec *ts, clockid_t clk, long ms)
{
	clock_gettime(clk, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

START_TEST(timed_waits)
{
	struct tw w = {.flag = 0};
	pthread_condattr_t ca;
	pthread_t t;
	double t0, waited;

	rt_init_rcl(&w.lock, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(pthread_condattr_init(&ca), 0);
	ck_assert_int_eq(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC), 0);
	ck_assert_int_eq(liblock_cond_init(&w.cond, &ca), 0);
	/* 1: nobody signals: ETIMEDOUT, not before the deadline */
	deadline_in(&w.deadline, CLOCK_MONOTONIC, 80);
	t0 = rt_now();
	liblock_exec(&w.lock, tw_cs, &w);
	waited = rt_now() - t0;
	ck_assert_int_eq(w.rc, ETIMEDOUT);
	ck_assert(waited >= 0.079 && waited < 5.0);
	/* 2: a deadline in the past times out at once */
	deadline_in(&w.deadline, CLOCK_MONOTONIC, -1000);
	liblock_exec(&w.lock, tw_cs, &w);
	ck_assert_int_eq(w.rc, ETIMEDOUT);
	/* 3: signalled well before a long deadline: 0, early */
	deadline_in(&w.deadline, CLOCK_MONOTONIC, 20000);
	atomic_init(&w.waiting, 0);
	t0 = rt_now();
	rt_start(&t, tw_waiter, &w);
	rt_wait_flag(&w.waiting, 10);
	usleep(20000);
	liblock_exec(&w.lock, tw_signal_cs, &w);
	rt_join(t, 10);
	ck_assert_int_eq(w.rc, 0);
	ck_assert_int_eq(w.flag, 1);
	ck_assert(rt_now() - t0 < 10.0);
	ck_assert_int_eq(liblock_cond_destroy(&w.cond), 0);
	ck_assert_int_eq(liblock_destroy(&w.lock), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* A wait outside any section of the lock is refused. */
START_TEST(wait_outside_section)
{
	liblock_lock_t l;
	liblock_cond_t c;

	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&c, NULL), 0);
	ck_assert_int_eq(liblock_cond_wait(&c, &l), EPERM);
	ck_assert_int_eq(liblock_cond_destroy(&c), 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

static Suite *make_suite(const char *mode)
{
	Suite *s = suite_create(mode);
	TCase *tc = tcase_create("cond");

	tcase_set_timeout(tc, TEST_TIMEOUT);
	tcase_add_test(tc, producer_consumer_many_waiters);
	tcase_add_test(tc, broadcast_wakes_all);
	tcase_add_test(tc, timed_waits);
	tcase_add_test(tc, wait_outside_section);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_main(make_suite);
}
