/* SPDX-License-Identifier: MIT */
/*
 * The lock word of RCL locks: held sections (liblock_lock/trylock/unlock)
 * mixed with delegated ones (liblock_exec, rcl_tryexec) on one lock;
 * condition waits that cross the two kinds; a server that keeps serving
 * while a held section blocks; alternation when both kinds want a lock;
 * nesting; and the fatal reports of sections that never come back.
 * Every test stops its servers and has a Check timeout (rcl_test.h).
 */
#include "rcl_test.h"

#include <signal.h>
#include <sys/wait.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* ---- mixed sections on one lock -----------------------------------------
 * 16 threads on one lock: a third delegate (liblock_exec, plus
 * rcl_tryexec now and then), a third lock/unlock, a third trylock with
 * retries.  Each section increments two counters on two lines and checks
 * that nobody else is inside; the totals must be exact, and every
 * delegated call sees its own section's mark.  A 17th thread delegates,
 * on another lock of the same server, sections that sleep 12 ms (more
 * than the manager's period, for degraded mode): each one blocks a
 * servicing thread, the manager adds (or wakes) another, and once it
 * wakes up two of them sweep the same requests until one leaves the
 * pool.  (A try request claimed by one while the other answered it
 * had its refusal land on the client's next, plain, request: a lost
 * section.) */

#define MIX_THREADS 16

struct mix {
	liblock_lock_t l;
	liblock_lock_t sleeper;
	atomic_int inside;
	atomic_int overlaps;
	atomic_int done;
	_Alignas(128) uint64_t a;
	_Alignas(128) uint64_t b;
	long per_thread;
	atomic_long try_fail;
	atomic_long sleeps;
};

/* one delegated call: the section marks it */
struct mix_call {
	struct mix *m;
	int ran;
};

static void mix_body(struct mix *m)
{
	/* relaxed: we look for a second thread inside; the lock under
	 * test provides the ordering */
	if (atomic_fetch_add_explicit(&m->inside, 1, memory_order_relaxed))
		atomic_fetch_add_explicit(&m->overlaps, 1,
					  memory_order_relaxed);
	m->a++;
	m->b++;
	atomic_fetch_sub_explicit(&m->inside, 1, memory_order_relaxed);
}

static void *mix_cs(void *arg)
{
	struct mix_call *c = arg;

	mix_body(c->m);
	c->ran++;
	return c;
}

static void *sleep_cs(void *arg)
{
	struct mix *m = arg;

	atomic_fetch_add_explicit(&m->sleeps, 1, memory_order_relaxed);
	usleep(12000);
	return arg;
}

/* Blocks a servicing thread now and then until the workers are done. */
static void *mix_sleeper(void *arg)
{
	struct mix *m = arg;

	while (!atomic_load(&m->done)) {
		ck_assert_ptr_eq(liblock_exec(&m->sleeper, sleep_cs, m), m);
		usleep(20000);
	}
	return NULL;
}

struct mix_arg {
	struct mix *m;
	int kind;
};

static void *mix_worker(void *arg)
{
	struct mix_arg *a = arg;
	struct mix *m = a->m;

	for (long i = 0; i < m->per_thread; i++) {
		switch (a->kind) {
		case 0: {
			struct mix_call c = {.m = m, .ran = 0};

			if ((i & 15) == 0) {
				void *r = NULL;

				while (rcl_tryexec(&m->l, mix_cs, &c, &r) ==
				       EBUSY) {
					ck_assert_int_eq(c.ran, 0);
					atomic_fetch_add(&m->try_fail, 1);
				}
				ck_assert_ptr_eq(r, &c);
			} else {
				ck_assert_ptr_eq(
					liblock_exec(&m->l, mix_cs, &c), &c);
			}
			/* its section ran, once */
			ck_assert_int_eq(c.ran, 1);
			break;
		}
		case 1:
			ck_assert_int_eq(liblock_lock(&m->l), 0);
			mix_body(m);
			ck_assert_int_eq(liblock_unlock(&m->l), 0);
			break;
		default:
			while (liblock_trylock(&m->l) == EBUSY) {
				atomic_fetch_add(&m->try_fail, 1);
				sched_yield();
			}
			mix_body(m);
			ck_assert_int_eq(liblock_unlock(&m->l), 0);
			break;
		}
	}
	return NULL;
}

START_TEST(mixed_sections_exact)
{
	struct mix *m = aligned_alloc(128, sizeof(*m));
	struct mix_arg args[MIX_THREADS];
	pthread_t t[MIX_THREADS], sleeper;
	/* 10^7 sections in all (10^6 under a sanitizer: 10x slower) */
	long total = SANITIZED ? 1000000 : 10000000;
	rcl_stats_t st;

	ck_assert_ptr_nonnull(m);
	memset(m, 0, sizeof(*m));
	rt_init_rcl(&m->l, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&m->sleeper, LIBLOCK_SERVER_DEFAULT);
	m->per_thread = total / MIX_THREADS;
	rt_start(&sleeper, mix_sleeper, m);
	for (int i = 0; i < MIX_THREADS; i++) {
		args[i].m = m;
		args[i].kind = i % 3;
		rt_start(&t[i], mix_worker, &args[i]);
	}
	for (int i = 0; i < MIX_THREADS; i++)
		rt_join(t[i], 280);
	atomic_store(&m->done, 1);
	rt_join(sleeper, 10);
	ck_assert_int_eq(atomic_load(&m->overlaps), 0);
	ck_assert_uint_eq(m->a, (uint64_t)m->per_thread * MIX_THREADS);
	ck_assert_uint_eq(m->b, (uint64_t)m->per_thread * MIX_THREADS);
	st = rt_stats(rcl_default_server());
	printf("# mixed: %ld sections, %llu delegated (both locks), %llu "
	       "deferred, %ld "
	       "failed tries; %ld sleeping sections, %llu threads created, "
	       "%llu woken\n",
	       m->per_thread * MIX_THREADS, (unsigned long long)st.cs,
	       (unsigned long long)st.deferred, atomic_load(&m->try_fail),
	       atomic_load(&m->sleeps), (unsigned long long)st.threads_created,
	       (unsigned long long)st.threads_reactivated);
	ck_assert_int_eq(liblock_destroy(&m->sleeper), 0);
	ck_assert_int_eq(liblock_destroy(&m->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(m);
}
END_TEST

/* ---- the API of held sections ------------------------------------------ */

static void *try_other(void *arg)
{
	return (void *)(intptr_t)liblock_trylock(arg);
}

static void *unlock_other(void *arg)
{
	return (void *)(intptr_t)liblock_unlock(arg);
}

static void *count_cs(void *arg)
{
	++*(int *)arg;
	return arg;
}

struct tx {
	liblock_lock_t l;
	int n;
};

static void *tryexec_other(void *arg)
{
	struct tx *x = arg;

	return (void *)(intptr_t)rcl_tryexec(&x->l, count_cs, &x->n, NULL);
}

START_TEST(held_api)
{
	struct tx x = {.n = 0};
	pthread_t t;
	void *rc;

	rt_init_rcl(&x.l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_lock(&x.l), 0);
	ck_assert_int_eq(liblock_lock(&x.l), EDEADLK);
	ck_assert_int_eq(liblock_trylock(&x.l), EBUSY);
	ck_assert_int_eq(rcl_tryexec(&x.l, count_cs, &x.n, NULL), EBUSY);
	/* another thread: busy for trylock and for a delegated try, and it
	 * may not unlock what it does not hold */
	rt_start(&t, try_other, &x.l);
	ck_assert_int_eq(pthread_join(t, &rc), 0);
	ck_assert_int_eq((int)(intptr_t)rc, EBUSY);
	rt_start(&t, tryexec_other, &x);
	ck_assert_int_eq(pthread_join(t, &rc), 0);
	ck_assert_int_eq((int)(intptr_t)rc, EBUSY);
	rt_start(&t, unlock_other, &x.l);
	ck_assert_int_eq(pthread_join(t, &rc), 0);
	ck_assert_int_eq((int)(intptr_t)rc, EPERM);
	ck_assert_int_eq(liblock_destroy(&x.l), EBUSY);
	ck_assert_int_eq(liblock_unlock(&x.l), 0);
	ck_assert_int_eq(liblock_unlock(&x.l), EPERM);
	ck_assert_int_eq(x.n, 0);
	/* free again: every kind gets it */
	ck_assert_int_eq(liblock_trylock(&x.l), 0);
	ck_assert_int_eq(liblock_unlock(&x.l), 0);
	ck_assert_int_eq(rcl_tryexec(&x.l, count_cs, &x.n, NULL), 0);
	ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
	ck_assert_int_eq(x.n, 2);
	ck_assert_int_eq(liblock_destroy(&x.l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* A recursive RCL lock: its holder's delegated try runs in place and
 * counts as one more level (pthread_mutex_trylock on a recursive mutex
 * it holds succeeds); an error-checking one's is EBUSY, as its trylock;
 * another thread's try is EBUSY either way. */
START_TEST(held_api_owned_types)
{
	static const unsigned int types[] = {LIBLOCK_ATTR_RECURSIVE,
					     LIBLOCK_ATTR_ERRORCHECK};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
		int recursive = types[i] == LIBLOCK_ATTR_RECURSIVE;
		struct tx x = {.n = 0};
		pthread_t t;
		void *rc;

		attr.algorithm = "rcl";
		attr.flags = LIBLOCK_ATTR_FIXED | types[i];
		ck_assert_int_eq(liblock_init(&x.l, &attr), 0);
		ck_assert_int_eq(liblock_lock(&x.l), 0);
		ck_assert_int_eq(rcl_tryexec(&x.l, count_cs, &x.n, NULL),
				 recursive ? 0 : EBUSY);
		ck_assert_int_eq(x.n, recursive);
		rt_start(&t, tryexec_other, &x);
		ck_assert_int_eq(pthread_join(t, &rc), 0);
		ck_assert_int_eq((int)(intptr_t)rc, EBUSY);
		ck_assert_int_eq(x.n, recursive);
		/* the try's level is gone: one unlock frees the lock */
		ck_assert_int_eq(liblock_unlock(&x.l), 0);
		ck_assert_int_eq(liblock_unlock(&x.l), EPERM);
		rt_start(&t, tryexec_other, &x);
		ck_assert_int_eq(pthread_join(t, &rc), 0);
		ck_assert_int_eq((int)(intptr_t)rc, 0);
		ck_assert_int_eq(x.n, recursive + 1);
		ck_assert_int_eq(liblock_destroy(&x.l), 0);
	}
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* ---- a word kept between delegated sections ---------------------------
 * The server keeps the word of the lock it served last while nobody else
 * wants it (servicing.c).  The lock is free all the same: a trylock, a
 * lock, a delegated try and a destroy right after a delegated section
 * must each succeed, from this thread and from another one. */

static void *trylock_unlock_other(void *arg)
{
	int rc = liblock_trylock(arg);

	if (rc == 0)
		rc = liblock_unlock(arg);
	return (void *)(intptr_t)rc;
}

START_TEST(word_kept_between_sections_is_free)
{
	struct tx x = {.n = 0};
	pthread_t t;
	void *rc;

	rt_init_rcl(&x.l, LIBLOCK_SERVER_DEFAULT);
	for (int i = 0; i < 2000; i++) {
		ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
		ck_assert_int_eq(liblock_trylock(&x.l), 0);
		x.n++;
		ck_assert_int_eq(liblock_unlock(&x.l), 0);
		ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
		ck_assert_int_eq(rcl_tryexec(&x.l, count_cs, &x.n, NULL), 0);
		ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
		ck_assert_int_eq(liblock_lock(&x.l), 0);
		ck_assert_int_eq(liblock_unlock(&x.l), 0);
	}
	ck_assert_int_eq(x.n, 5 * 2000);
	for (int i = 0; i < 50; i++) {
		ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
		rt_start(&t, trylock_unlock_other, &x.l);
		ck_assert_int_eq(pthread_join(t, &rc), 0);
		ck_assert_int_eq((int)(intptr_t)rc, 0);
	}
	ck_assert_ptr_eq(liblock_exec(&x.l, count_cs, &x.n), &x.n);
	ck_assert_int_eq(liblock_destroy(&x.l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* ---- condition waits across the two kinds ------------------------------ */

struct cx {
	liblock_lock_t l;
	liblock_cond_t c;
	int ready, seen;
	atomic_int waiting;
};

static void *wait_cs(void *arg) /* delegated: wait for a held signal */
{
	struct cx *x = arg;

	atomic_store(&x->waiting, 1);
	while (!x->ready)
		ck_assert_int_eq(liblock_cond_wait(&x->c, &x->l), 0);
	x->seen++;
	return NULL;
}

static void *signal_cs(void *arg) /* delegated: signal a held waiter */
{
	struct cx *x = arg;

	x->ready = 1;
	liblock_cond_signal(&x->c);
	return NULL;
}

static void *delegated_waiter(void *arg)
{
	struct cx *x = arg;

	liblock_exec(&x->l, wait_cs, x);
	return NULL;
}

static void *held_waiter(void *arg)
{
	struct cx *x = arg;

	ck_assert_int_eq(liblock_lock(&x->l), 0);
	atomic_store(&x->waiting, 1);
	while (!x->ready)
		ck_assert_int_eq(liblock_cond_wait(&x->c, &x->l), 0);
	x->seen++;
	ck_assert_int_eq(liblock_unlock(&x->l), 0);
	return NULL;
}

START_TEST(cond_across_kinds)
{
	struct cx *x = calloc(1, sizeof(*x));
	pthread_t t;

	ck_assert_ptr_nonnull(x);
	rt_init_rcl(&x->l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&x->c, NULL), 0);
	/* a delegated section waits, a held section signals */
	rt_start(&t, delegated_waiter, x);
	rt_wait_flag(&x->waiting, 10);
	ck_assert_int_eq(liblock_lock(&x->l), 0); /* it released the word */
	x->ready = 1;
	liblock_cond_signal(&x->c);
	ck_assert_int_eq(liblock_unlock(&x->l), 0);
	rt_join(t, 20);
	ck_assert_int_eq(x->seen, 1);
	/* a held section waits, a delegated section signals */
	x->ready = 0;
	atomic_store(&x->waiting, 0);
	rt_start(&t, held_waiter, x);
	rt_wait_flag(&x->waiting, 10);
	liblock_exec(&x->l, signal_cs, x);
	rt_join(t, 20);
	ck_assert_int_eq(x->seen, 2);
	ck_assert_int_eq(liblock_cond_destroy(&x->c), 0);
	ck_assert_int_eq(liblock_destroy(&x->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(x);
}
END_TEST

/* ---- liveness: a held section that blocks ------------------------------- */

struct live {
	liblock_lock_t a, b;
	atomic_int holding, release, stop;
	atomic_long b_calls, a_done;
	int in_a;
};

static void *inc_cs(void *arg)
{
	++*(int *)arg;
	return arg;
}

static void *b_caller(void *arg)
{
	struct live *v = arg;
	int dummy = 0;

	while (!atomic_load(&v->stop)) {
		liblock_exec(&v->b, inc_cs, &dummy);
		atomic_fetch_add(&v->b_calls, 1);
	}
	return NULL;
}

static void *a_caller(void *arg)
{
	struct live *v = arg;

	liblock_exec(&v->a, inc_cs, &v->in_a);
	atomic_store(&v->a_done, 1);
	return NULL;
}

static void *a_holder(void *arg)
{
	struct live *v = arg;

	ck_assert_int_eq(liblock_lock(&v->a), 0);
	atomic_store(&v->holding, 1);
	while (!atomic_load(&v->release))
		usleep(1000); /* blocked in a held section */
	v->in_a += 100;
	ck_assert_int_eq(liblock_unlock(&v->a), 0);
	return NULL;
}

START_TEST(held_section_blocks_server_serves)
{
	struct live *v = calloc(1, sizeof(*v));
	pthread_t h, ca, cb;
	long before;
	double end;
	rcl_stats_t st;

	ck_assert_ptr_nonnull(v);
	rt_init_rcl(&v->a, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&v->b, LIBLOCK_SERVER_DEFAULT);
	rt_start(&h, a_holder, v);
	rt_wait_flag(&v->holding, 10);
	rt_start(&ca, a_caller, v); /* its request waits for the word */
	rt_start(&cb, b_caller, v);
	/* a's request is pending once the server has deferred it (counted
	 * only with lock stats; otherwise give the caller a moment) */
	if (RCL_LOCK_STATS) {
		end = rt_now() + 30;
		while (rt_stats(rcl_default_server()).deferred == 0) {
			ck_assert_msg(rt_now() < end,
				      "a's request not deferred within 30 s");
			usleep(1000);
		}
	} else {
		usleep(50000);
	}
	/* lock b is served while a's request is pending: wait (bounded:
	 * a loaded machine gives the threads little CPU, so no rate is
	 * promised) for 100 more calls on b, with a not done all along */
	before = atomic_load(&v->b_calls);
	end = rt_now() + 30;
	while (atomic_load(&v->b_calls) <= before + 100) {
		ck_assert_int_eq(atomic_load(&v->a_done), 0);
		ck_assert_msg(rt_now() < end,
			      "lock b got %ld calls in 30 s while a's request "
			      "was pending; want > 100",
			      atomic_load(&v->b_calls) - before);
		usleep(1000);
	}
	ck_assert_int_eq(atomic_load(&v->a_done), 0);
	st = rt_stats(rcl_default_server());
	RT_COUNTED(ck_assert_uint_ge(st.deferred, 1));
	/* the server never waits on a: it went on sweeping (it did not
	 * spin inside a's request, nor block a servicing thread on it) */
	ck_assert_uint_eq(st.threads_created, 1);
	atomic_store(&v->release, 1);
	rt_join(h, 10);
	rt_join(ca, 10);
	/* the held section ran first, then the delegated one */
	ck_assert_int_eq(v->in_a, 101);
	atomic_store(&v->stop, 1);
	rt_join(cb, 10);
	ck_assert_int_eq(liblock_destroy(&v->a), 0);
	ck_assert_int_eq(liblock_destroy(&v->b), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(v);
}
END_TEST

/* A held section that waits on a condition variable: same, and the
 * delegated request runs as soon as the word is free. */
static void *held_cond_waiter(void *arg)
{
	struct cx *x = arg;

	ck_assert_int_eq(liblock_lock(&x->l), 0);
	atomic_store(&x->waiting, 1);
	while (!x->ready)
		ck_assert_int_eq(liblock_cond_wait(&x->c, &x->l), 0);
	ck_assert_int_eq(liblock_unlock(&x->l), 0);
	return NULL;
}

static void *set_ready_cs(void *arg)
{
	struct cx *x = arg;

	x->seen++;
	x->ready = 1;
	liblock_cond_broadcast(&x->c);
	return NULL;
}

START_TEST(held_cond_wait_lets_delegated_in)
{
	struct cx *x = calloc(1, sizeof(*x));
	pthread_t t;

	ck_assert_ptr_nonnull(x);
	rt_init_rcl(&x->l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq(liblock_cond_init(&x->c, NULL), 0);
	rt_start(&t, held_cond_waiter, x);
	rt_wait_flag(&x->waiting, 10);
	/* the waiter released the word inside its wait: this delegated
	 * section must run now, not after a time-out */
	liblock_exec(&x->l, set_ready_cs, x);
	rt_join(t, 10);
	ck_assert_int_eq(x->seen, 1);
	ck_assert_int_eq(liblock_cond_destroy(&x->c), 0);
	ck_assert_int_eq(liblock_destroy(&x->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(x);
}
END_TEST

/* ---- fairness: both kinds hammer one lock -------------------------------
 * A thread that loops on held sections and one that loops on delegated
 * sections must both make progress (neither starves): each reaches its
 * quota while the other is still running. */

struct fair {
	liblock_lock_t l;
	atomic_long held, delegated;
	atomic_int stop;
	long quota;
	atomic_long held_at_quota, delegated_at_quota;
};

static void *fair_held(void *arg)
{
	struct fair *f = arg;

	while (!atomic_load(&f->stop)) {
		ck_assert_int_eq(liblock_lock(&f->l), 0);
		if (atomic_fetch_add(&f->held, 1) + 1 == f->quota)
			atomic_store(&f->delegated_at_quota,
				     atomic_load(&f->delegated));
		ck_assert_int_eq(liblock_unlock(&f->l), 0);
	}
	return NULL;
}

static void *nop_cs(void *arg)
{
	return arg;
}

static void *fair_delegated(void *arg)
{
	struct fair *f = arg;

	while (!atomic_load(&f->stop)) {
		liblock_exec(&f->l, nop_cs, f);
		if (atomic_fetch_add(&f->delegated, 1) + 1 == f->quota)
			atomic_store(&f->held_at_quota, atomic_load(&f->held));
	}
	return NULL;
}

START_TEST(fairness_both_kinds_progress)
{
	struct fair *f = calloc(1, sizeof(*f));
	pthread_t th[4];
	double end;

	ck_assert_ptr_nonnull(f);
	rt_init_rcl(&f->l, LIBLOCK_SERVER_DEFAULT);
	f->quota = 20000;
	atomic_store(&f->held_at_quota, -1);
	atomic_store(&f->delegated_at_quota, -1);
	rt_start(&th[0], fair_held, f);
	rt_start(&th[1], fair_held, f);
	rt_start(&th[2], fair_delegated, f);
	rt_start(&th[3], fair_delegated, f);
	end = rt_now() + 40;
	while ((atomic_load(&f->held) < f->quota ||
		atomic_load(&f->delegated) < f->quota) &&
	       rt_now() < end)
		usleep(10000);
	atomic_store(&f->stop, 1);
	for (int i = 0; i < 4; i++)
		rt_join(th[i], 20);
	printf("# fairness: %ld held, %ld delegated sections; deferred "
	       "%llu\n",
	       atomic_load(&f->held), atomic_load(&f->delegated),
	       (unsigned long long)rt_stats(rcl_default_server()).deferred);
	ck_assert_int_ge(atomic_load(&f->held), f->quota);
	ck_assert_int_ge(atomic_load(&f->delegated), f->quota);
	ck_assert_int_eq(liblock_destroy(&f->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(f);
}
END_TEST

/* ---- nesting -------------------------------------------------------------
 * A delegated section of a takes b's word (held inside delegated); a held
 * section of b calls liblock_exec on a lock of the same server (d) and on
 * one of another server (c).  The lock order a -> b -> {c, d} has no
 * cycle, so POSIX mutexes would not deadlock and neither may we; several
 * threads do both at once, the counts must be exact. */

struct nest {
	liblock_lock_t a, b, c, d; /* a, b, d on one server, c on another */
	long in_a, in_b, in_c, in_d;
	int iters;
	atomic_long iters_done; /* progress, for the stall check */
};

static void *a_takes_b_cs(void *arg)
{
	struct nest *n = arg;

	n->in_a++;
	ck_assert_int_eq(liblock_lock(&n->b), 0);
	n->in_b++;
	ck_assert_int_eq(liblock_unlock(&n->b), 0);
	return arg;
}

static void *inc_long_cs(void *arg)
{
	++*(long *)arg;
	return arg;
}

static void *nest_worker(void *arg)
{
	struct nest *n = arg;

	for (int i = 0; i < n->iters; i++) {
		liblock_exec(&n->a, a_takes_b_cs, n);
		ck_assert_int_eq(liblock_lock(&n->b), 0);
		n->in_b++;
		liblock_exec(&n->c, inc_long_cs, &n->in_c);
		liblock_exec(&n->d, inc_long_cs, &n->in_d);
		ck_assert_int_eq(liblock_unlock(&n->b), 0);
		/* relaxed: a progress count only; the joins order the
		 * counters the test checks */
		atomic_fetch_add_explicit(&n->iters_done, 1,
					  memory_order_relaxed);
	}
	return NULL;
}

START_TEST(nested_held_and_delegated)
{
	struct nest *n = calloc(1, sizeof(*n));
	pthread_t t[6];
	int s1 = rcl_default_server(), s2 = s1 == 0 ? 1 : 0;

	ck_assert_ptr_nonnull(n);
	atomic_init(&n->iters_done, 0);
	rt_init_rcl(&n->a, s1);
	rt_init_rcl(&n->b, s1);
	rt_init_rcl(&n->d, s1);
	rt_init_rcl(&n->c, s2);
	n->iters = 2000;
	for (int i = 0; i < 6; i++)
		rt_start(&t[i], nest_worker, n);
	/* ~100 s for the whole run under ASan at load 15 */
	rt_wait_progress(&n->iters_done, 6L * n->iters, 30, "nested sections");
	for (int i = 0; i < 6; i++)
		rt_join(t[i], 10);
	ck_assert_int_eq(n->in_a, 6L * n->iters);
	ck_assert_int_eq(n->in_b, 6L * 2 * n->iters);
	ck_assert_int_eq(n->in_c, 6L * n->iters);
	ck_assert_int_eq(n->in_d, 6L * n->iters);
	ck_assert_int_eq(liblock_destroy(&n->a), 0);
	ck_assert_int_eq(liblock_destroy(&n->b), 0);
	ck_assert_int_eq(liblock_destroy(&n->c), 0);
	ck_assert_int_eq(liblock_destroy(&n->d), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(n);
}
END_TEST

/* ---- sections that never come back ---------------------------------------
 * Each case runs in a child whose stderr goes to a pipe: it must die
 * (abort) with a message naming the lock, within the time limit. */

typedef void (*scenario_fn)(liblock_lock_t *l);

/* Run @fn on a fresh RCL lock in a child process (a hang is a failure,
 * reported as SIGALRM); its wait status in @status, its stderr in @buf. */
static void run_scenario(scenario_fn fn, int *status, char *buf, size_t size)
{
	int p[2];
	ssize_t n, len = 0;
	liblock_lock_t *l = malloc(sizeof(*l));
	pid_t pid;

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		alarm(20);
		dup2(p[1], 2);
		close(p[0]);
		rt_init_rcl(l, LIBLOCK_SERVER_DEFAULT);
		fn(l);
		_exit(0);
	}
	close(p[1]);
	while (len < (ssize_t)size - 1 &&
	       (n = read(p[0], buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	buf[len] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	free(l);
}

static void expect_fatal(scenario_fn fn, const char *needle)
{
	char buf[4096];
	int status;

	run_scenario(fn, &status, buf, sizeof(buf));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		      "expected an abort, got status %#x; stderr: %s", status,
		      buf);
	ck_assert_msg(strstr(buf, needle) != NULL, "no '%s' in: %s", needle,
		      buf);
	/* the message names the lock structure (a pointer) */
	ck_assert_msg(strstr(buf, "RCL lock 0x") != NULL,
		      "lock not named in: %s", buf);
}

static void *exit_cs(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static void delegated_exit(liblock_lock_t *l)
{
	liblock_exec(l, exit_cs, NULL);
}

static void exec_inside_own_held(liblock_lock_t *l)
{
	ck_assert_int_eq(liblock_lock(l), 0);
	liblock_exec(l, nop_cs, NULL);
}

START_TEST(never_returning_sections_are_fatal)
{
	expect_fatal(delegated_exit, "ended its servicing thread");
	expect_fatal(exec_inside_own_held, "would wait for itself");
}
END_TEST

/* A thread that exits holding a word (lbzip2's bailout(): pthread_exit()
 * inside a section, while the main thread ends the process): under POSIX
 * its waiters wait until the process is gone, and so they do here, parked
 * ones and later ones, held and delegated; a thread created later (which
 * may be given the exited one's token) finds the lock busy and not its
 * own; the exit is reported, naming the lock. */
static atomic_int orphan_waiter_returned;

static void *hold_then_exit(void *arg)
{
	if (liblock_lock(arg) != 0)
		_exit(5);
	usleep(100000); /* the first waiter parks meanwhile */
	pthread_exit(NULL);
}

static void *lock_and_note(void *arg)
{
	if (liblock_lock(arg) == 0)
		atomic_store(&orphan_waiter_returned, 1);
	return NULL;
}

static void *exec_and_note(void *arg)
{
	liblock_exec(arg, nop_cs, NULL);
	atomic_store(&orphan_waiter_returned, 1);
	return NULL;
}

static void *not_mine(void *arg)
{
	return (void *)(long)(liblock_trylock(arg) == EBUSY &&
			      liblock_unlock(arg) == EPERM);
}

static void exit_holding_then_process_ends(liblock_lock_t *l)
{
	pthread_t t, w, d, n;
	void *ok;

	if (pthread_create(&t, NULL, hold_then_exit, l) != 0)
		_exit(5);
	usleep(20000);
	if (pthread_create(&w, NULL, lock_and_note, l) != 0 ||
	    pthread_join(t, NULL) != 0 ||
	    pthread_create(&d, NULL, exec_and_note, l) != 0 ||
	    pthread_create(&n, NULL, not_mine, l) != 0 ||
	    pthread_join(n, &ok) != 0)
		_exit(5);
	usleep(300000); /* the waiters wait */
	if (!ok)
		_exit(4);
	_exit(atomic_load(&orphan_waiter_returned) ? 3 : 7);
}

START_TEST(orphaned_word_waits_like_posix)
{
	char buf[4096];
	int status;

	run_scenario(exit_holding_then_process_ends, &status, buf, sizeof(buf));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 7,
		      "expected exit 7 (3: a waiter got the lock, 4: a new "
		      "thread owned it), got status %#x; stderr: %s",
		      status, buf);
	ck_assert_msg(strstr(buf, "exited holding RCL lock 0x") != NULL,
		      "the exit is not reported: %s", buf);
}
END_TEST

/* A thread cancelled while its first call on a static RCL lock starts
 * the lock and its server (which reaches cancellation points: it reads
 * sysfs) must not leave them half built: the lock stayed "initialising"
 * and every later call spun for ever. */
static liblock_lock_t first_use =
	LIBLOCK_INITIALIZER_ALGO("rcl", LIBLOCK_SERVER_DEFAULT);
static atomic_long first_use_n;

static void *first_use_loop(void *arg)
{
	(void)arg;
	/* no ck_assert here: Check reports each one's place through a pipe,
	 * a cancellation point inside the section */
	for (;;) {
		if (liblock_lock(&first_use) != 0)
			abort();
		atomic_fetch_add_explicit(&first_use_n, 1,
					  memory_order_relaxed);
		if (liblock_unlock(&first_use) != 0)
			abort();
		usleep(100); /* the cancellation point */
	}
	return NULL;
}

static void *first_use_after(void *arg)
{
	(void)arg;
	liblock_exec(&first_use, nop_cs, NULL);
	ck_assert_int_eq(liblock_lock(&first_use), 0);
	atomic_fetch_add_explicit(&first_use_n, 1, memory_order_relaxed);
	ck_assert_int_eq(liblock_unlock(&first_use), 0);
	return NULL;
}

START_TEST(cancelled_during_first_use)
{
	pthread_t t;
	void *res;

	rt_start(&t, first_use_loop, NULL);
	ck_assert_int_eq(pthread_cancel(t), 0); /* at once: inside the init */
	ck_assert_int_eq(pthread_join(t, &res), 0);
	ck_assert_ptr_eq(res, PTHREAD_CANCELED);
	rt_start(&t, first_use_after, NULL);
	rt_join(t, 20);
	ck_assert_str_eq(liblock_lock_algorithm(&first_use), "rcl");
	ck_assert_int_eq(liblock_destroy(&first_use), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

Suite *make_suite(const char *mode)
{
	Suite *s = suite_create(mode);
	TCase *tc = tcase_create("word");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, held_api);
	tcase_add_test(tc, held_api_owned_types);
	tcase_add_test(tc, word_kept_between_sections_is_free);
	tcase_add_test(tc, cond_across_kinds);
	tcase_add_test(tc, held_section_blocks_server_serves);
	tcase_add_test(tc, held_cond_wait_lets_delegated_in);
	tcase_add_test(tc, fairness_both_kinds_progress);
	tcase_add_test(tc, nested_held_and_delegated);
	tcase_add_test(tc, never_returning_sections_are_fatal);
	tcase_add_test(tc, orphaned_word_waits_like_posix);
	tcase_add_test(tc, cancelled_during_first_use);
	tcase_add_test(tc, mixed_sections_exact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_main(make_suite);
}
