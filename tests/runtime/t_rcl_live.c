/* SPDX-License-Identifier: MIT */
/*
 * Liveness of the RCL runtime: sections that block, spin or yield on the
 * server never stall the other locks of their server (thesis §4.1.2.1),
 * and the slot-claiming race (thesis Alg. 10) is closed.
 */
#include "rcl_test.h"

#include <sys/mman.h>

#include "rcl_int.h" /* struct rcl_lock: which lock word is held */

/* ---- thesis Fig. 4.3: cond wait + spin on a flag set by a third CS ------ */

struct fig43 {
	liblock_lock_t a, b, c;
	liblock_cond_t cv;
	atomic_int ready, var, c1_waiting, c2_spinning, done1, done2, done3;
};

static void *set_ready_cs(void *arg) /* under a, nested in c2's section */
{
	struct fig43 *f = arg;

	atomic_store(&f->ready, 1);
	liblock_cond_signal(&f->cv);
	return NULL;
}

static void *cs1(void *arg) /* lock a: blocks in a condition wait */
{
	struct fig43 *f = arg;

	atomic_store(&f->c1_waiting, 1);
	while (!atomic_load(&f->ready))
		ck_assert_int_eq(liblock_cond_wait(&f->cv, &f->a), 0);
	return (void *)1;
}

static void *cs2(void *arg) /* lock b: spins until c3 sets var */
{
	struct fig43 *f = arg;

	atomic_store(&f->c2_spinning, 1);
	while (!atomic_load(&f->var))
		sched_yield(), atomic_signal_fence(memory_order_seq_cst);
	liblock_exec(&f->a, set_ready_cs, f); /* nested, same server */
	return (void *)2;
}

static void *cs2_pure_spin(void *arg) /* lock b: spins, never yields */
{
	struct fig43 *f = arg;

	atomic_store(&f->c2_spinning, 1);
	while (!atomic_load(&f->var))
		;
	liblock_exec(&f->a, set_ready_cs, f);
	return (void *)2;
}

static void *cs3(void *arg) /* lock c: sets var */
{
	atomic_store(&((struct fig43 *)arg)->var, 1);
	return (void *)3;
}

static struct fig43 *fig;
static void *c1(void *x)
{
	ck_assert_ptr_eq(liblock_exec(&fig->a, cs1, fig), (void *)1);
	atomic_store(&fig->done1, 1);
	return x;
}
static void *c2(void *x)
{
	ck_assert_ptr_eq(liblock_exec(&fig->b, x ? cs2_pure_spin : cs2, fig),
			 (void *)2);
	atomic_store(&fig->done2, 1);
	return x;
}
static void *c3(void *x)
{
	ck_assert_ptr_eq(liblock_exec(&fig->c, cs3, fig), (void *)3);
	atomic_store(&fig->done3, 1);
	return x;
}

static void run_fig43(void *pure_spin)
{
	pthread_t t1, t2, t3;
	rcl_stats_t st;

	fig = calloc(1, sizeof(*fig));
	ck_assert_ptr_nonnull(fig);
	rt_init_rcl(&fig->a, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&fig->b, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&fig->c, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&fig->cv, NULL), 0);
	rt_start(&t1, c1, NULL);
	rt_wait_flag(&fig->c1_waiting, 10);
	rt_start(&t2, c2, pure_spin);
	rt_wait_flag(&fig->c2_spinning, 10);
	rt_start(&t3, c3, NULL);
	rt_join(t3, 20);
	rt_join(t2, 20);
	rt_join(t1, 20);
	st = rt_stats(rcl_default_server());
	ck_assert_uint_ge(st.threads_created, 3); /* t1, t2, t3 of Fig. 4.3 */
	ck_assert_uint_ge(st.cond_waits, 1);
	RT_COUNTED(ck_assert_uint_ge(st.cs_inline, 1));
	if (pure_spin && !rcl_degraded())
		ck_assert_uint_ge(st.elections, 1); /* nothing else helps */
	if (pure_spin)
		ck_assert_uint_ge(st.alive_misses, 1);
	ck_assert_int_eq(liblock_cond_destroy(&fig->cv), 0);
	ck_assert_int_eq(liblock_destroy(&fig->a), 0);
	ck_assert_int_eq(liblock_destroy(&fig->b), 0);
	ck_assert_int_eq(liblock_destroy(&fig->c), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(fig);
}

START_TEST(fig43_liveness)
{
	run_fig43(NULL);
}
END_TEST

/* c2's section spins without ever yielding: only the manager's forced
 * election (FIFO) or time slicing (degraded) lets c3 run. */
START_TEST(fig43_liveness_pure_spin)
{
	run_fig43((void *)1);
}
END_TEST

/* ---- a section blocked in I/O does not stall another lock --------------- */

struct io_ctx {
	liblock_lock_t slow, fast;
	int pipefd[2];
	atomic_int inside_slow;
	atomic_int fast_done; /* the main thread finished its fast sections */
	atomic_int watchdog_fired; /* it had to unblock the slow one */
	long fast_count;
};

/* If the fast sections stall behind the blocked one, only the pipe write
 * releases them: after STALL_LIMIT seconds the watchdog writes it and says
 * so.  A bound on the loop's time would instead measure throughput, which
 * a loaded machine (degraded mode, time-sliced servicing threads) cannot
 * promise. */
#define STALL_LIMIT 40

static void *stall_watchdog(void *arg)
{
	struct io_ctx *c = arg;
	double t0 = rt_now();

	while (!atomic_load(&c->fast_done) && rt_now() - t0 < STALL_LIMIT)
		usleep(10000);
	if (!atomic_load(&c->fast_done)) {
		atomic_store(&c->watchdog_fired, 1);
		ck_assert_int_eq(write(c->pipefd[1], "x", 1), 1);
	}
	return NULL;
}

static void *slow_cs(void *arg)
{
	struct io_ctx *c = arg;
	char byte;

	atomic_store(&c->inside_slow, 1);
	ck_assert_int_eq(read(c->pipefd[0], &byte, 1), 1); /* blocks */
	atomic_store(&c->inside_slow, 0);
	return NULL;
}

static void *fast_cs(void *arg)
{
	((struct io_ctx *)arg)->fast_count++;
	return NULL;
}

static void *slow_client(void *arg)
{
	struct io_ctx *c = arg;

	liblock_exec(&c->slow, slow_cs, c);
	return NULL;
}

START_TEST(blocking_section_does_not_stall)
{
	struct io_ctx c = {.fast_count = 0};
	pthread_t t, dog;

	ck_assert_int_eq(pipe(c.pipefd), 0);
	rt_init_rcl(&c.slow, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&c.fast, LIBLOCK_SERVER_DEFAULT);
	atomic_init(&c.inside_slow, 0);
	atomic_init(&c.fast_done, 0);
	atomic_init(&c.watchdog_fired, 0);
	rt_start(&t, slow_client, &c);
	rt_wait_flag(&c.inside_slow, 10);
	rt_start(&dog, stall_watchdog, &c);
	for (int i = 0; i < 2000; i++)
		liblock_exec(&c.fast, fast_cs, &c);
	atomic_store(&c.fast_done, 1);
	ck_assert_msg(!atomic_load(&c.watchdog_fired),
		      "the other lock stalled until its watchdog (%d s) "
		      "unblocked the slow section",
		      STALL_LIMIT);
	/* the slow section is still blocked in read(2) */
	ck_assert_int_eq(atomic_load(&c.inside_slow), 1);
	ck_assert_int_eq(c.fast_count, 2000);
	rt_join(dog, 10);
	ck_assert_int_eq(write(c.pipefd[1], "x", 1), 1);
	rt_join(t, 10);
	close(c.pipefd[0]);
	close(c.pipefd[1]);
	ck_assert_int_eq(liblock_destroy(&c.slow), 0);
	ck_assert_int_eq(liblock_destroy(&c.fast), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* ---- the slot-claiming race (thesis Alg. 10) -----------------------------
 * Clients alternate between two locks; sections yield and page-fault, and
 * a third lock's sections block in timed waits so that the server has
 * several servicing threads sweeping at once.  Every request must run
 * exactly once, with its own lock held and no other section of that lock
 * inside. */

#define RACE_CLIENTS 6
#define RACE_ITERS 400

struct race {
	liblock_lock_t lk[3];
	liblock_cond_t never;
	atomic_int inside[3];
	atomic_int violations;
	long count[3];
};

struct race_req {
	struct race *r;
	int which;
	long runs; /* times this request's section ran */
};

static void touch_fresh_page(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	p[0] = 1; /* page fault inside the section */
	munmap(p, 4096);
}

static void *race_cs(void *arg)
{
	struct race_req *q = arg;
	struct race *r = q->r;

	struct rcl_lock *held = ll_lock_impl(&r->lk[q->which]);

	if (atomic_fetch_add(&r->inside[q->which], 1) != 0)
		atomic_fetch_add(&r->violations, 1);
	if (atomic_load(&held->holder) == 0) /* not under its own lock */
		atomic_fetch_add(&r->violations, 1);
	q->runs++;
	r->count[q->which]++;
	if (q->which == 2) {
		struct timespec dl;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += 300000;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		/* the wait releases the lock: another section may enter */
		atomic_fetch_sub(&r->inside[2], 1);
		ck_assert_int_eq(
			liblock_cond_timedwait(&r->never, &r->lk[2], &dl),
			ETIMEDOUT);
		if (atomic_fetch_add(&r->inside[2], 1) != 0 ||
		    atomic_load(&held->holder) == 0)
			atomic_fetch_add(&r->violations, 1);
	} else {
		sched_yield();
		if ((q->runs & 3) == 0)
			touch_fresh_page();
	}
	atomic_fetch_sub(&r->inside[q->which], 1);
	return q;
}

static struct race *race;

static void *race_client(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < RACE_ITERS; i++) {
		struct race_req q = {race, (i + id) % 3, 0};

		ck_assert_ptr_eq(liblock_exec(&race->lk[q.which], race_cs, &q),
				 &q);
		ck_assert_int_eq(q.runs, 1);
	}
	return NULL;
}

START_TEST(claim_race_exactly_once)
{
	pthread_t t[RACE_CLIENTS];
	long total = 0;

	race = calloc(1, sizeof(*race));
	ck_assert_ptr_nonnull(race);
	for (int i = 0; i < 3; i++)
		rt_init_rcl(&race->lk[i], LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&race->never, NULL), 0);
	for (int i = 0; i < RACE_CLIENTS; i++)
		rt_start(&t[i], race_client, (void *)(intptr_t)i);
	for (int i = 0; i < RACE_CLIENTS; i++)
		rt_join(t[i], 50);
	for (int i = 0; i < 3; i++)
		total += race->count[i];
	ck_assert_int_eq(atomic_load(&race->violations), 0);
	ck_assert_int_eq(total, (long)RACE_CLIENTS * RACE_ITERS);
	ck_assert_uint_ge(rt_stats(rcl_default_server()).threads_created, 2);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(liblock_destroy(&race->lk[i]), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(race);
}
END_TEST

Suite *make_suite(const char *mode)
{
	Suite *s = suite_create(mode);
	TCase *tc = tcase_create("liveness");

	tcase_set_timeout(tc, TEST_TIMEOUT);
	tcase_add_test(tc, fig43_liveness);
	tcase_add_test(tc, fig43_liveness_pure_spin);
	tcase_add_test(tc, blocking_section_does_not_stall);
	tcase_add_test(tc, claim_race_exactly_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_main(make_suite);
}
