/* SPDX-License-Identifier: MIT */
/*
 * One stress suite for every algorithm in liblock_algorithms(): each test
 * is a Check loop test whose index picks the algorithm, so a new algorithm
 * is covered as soon as it is registered.  $LIBLOCK_TEST_ALGOS=a,b,...
 * restricts the run; $LIBLOCK_TEST_SCALE=N multiplies the iterations.
 *
 * Mutual exclusion is checked two ways: counters on five cache lines must
 * add up exactly, and an "inside" flag must never be seen set on entry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

static const char *algos[64];
static int nalgos;
static int scale = 1;

static unsigned int caps_of(const char *name)
{
	liblock_algorithm_info_t info;

	ck_assert_int_eq(liblock_algorithm_info(name, &info), 0);
	return info.caps;
}

static void init_lock(liblock_lock_t *l, const char *name)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_msg(liblock_init(l, &attr) == 0, "init %s", name);
	ck_assert_str_eq(liblock_lock_algorithm(l), name);
}

/* ---- counters ----------------------------------------------------------- */

struct counter_ctx {
	liblock_lock_t lock;
	struct shared_lines data;
	atomic_int inside;
	atomic_int overlaps;
	int iterations;
	int use_lock_api;
};

static void section_body(struct counter_ctx *c)
{
	/* relaxed is enough: a second thread inside is what we look for,
	 * and the lock under test provides the ordering being tested */
	if (atomic_fetch_add_explicit(&c->inside, 1, memory_order_relaxed) != 0)
		atomic_fetch_add_explicit(&c->overlaps, 1,
					  memory_order_relaxed);
	for (int i = 0; i < TEST_LINES; i++)
		c->data.line[i].value++;
	atomic_fetch_sub_explicit(&c->inside, 1, memory_order_relaxed);
}

static void *section_fn(void *arg)
{
	section_body(arg);
	return arg;
}

static void *counter_worker(void *arg)
{
	struct counter_ctx *c = *(struct counter_ctx **)arg;

	for (int i = 0; i < c->iterations; i++) {
		if (c->use_lock_api) {
			ck_assert_int_eq(liblock_lock(&c->lock), 0);
			section_body(c);
			ck_assert_int_eq(liblock_unlock(&c->lock), 0);
		} else {
			/* the return value must be fn's */
			ck_assert_ptr_eq(liblock_exec(&c->lock, section_fn, c),
					 c);
		}
		if ((i & 63) == 0)
			sched_yield(); /* vary the interleavings */
	}
	return NULL;
}

static void run_counters(const char *name, int threads, int iterations,
			 int use_lock_api)
{
	struct counter_ctx *c = calloc(1, sizeof(*c));
	struct counter_ctx **args = calloc((size_t)threads, sizeof(*args));
	uint64_t expected = (uint64_t)threads * (uint64_t)iterations;

	ck_assert_ptr_nonnull(c);
	init_lock(&c->lock, name);
	c->iterations = iterations;
	c->use_lock_api = use_lock_api;
	for (int i = 0; i < threads; i++)
		args[i] = c;
	run_threads(threads, counter_worker, args, sizeof(*args));
	ck_assert_int_eq(atomic_load(&c->overlaps), 0);
	for (int i = 0; i < TEST_LINES; i++)
		ck_assert_uint_eq(c->data.line[i].value, expected);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(args);
	free(c);
}

START_TEST(exec_mutual_exclusion)
{
	run_counters(algos[_i], 4, 20000 * scale, 0);
}
END_TEST

START_TEST(lock_api_mutual_exclusion)
{
	const char *name = algos[_i];
	liblock_lock_t l;

	if (caps_of(name) & LIBLOCK_CAP_LOCK) {
		run_counters(name, 4, 20000 * scale, 1);
		return;
	}
	/* No lock word: the lock API must say so, not pretend. */
	init_lock(&l, name);
	ck_assert_int_eq(liblock_lock(&l), ENOTSUP);
	ck_assert_int_eq(liblock_trylock(&l), ENOTSUP);
	ck_assert_int_eq(liblock_unlock(&l), ENOTSUP);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* More threads than CPUs: spinning waiters and preempted holders. */
START_TEST(oversubscribed)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cpus * 4 > 16 ? (int)cpus * 4 : 16;

	run_counters(algos[_i], threads, 150 * scale, 0);
}
END_TEST

/* ---- trylock ------------------------------------------------------------ */

struct try_ctx {
	liblock_lock_t *lock;
	int result;
};

static void *try_from_other_thread(void *arg)
{
	struct try_ctx *t = arg;

	t->result = liblock_trylock(t->lock);
	if (t->result == 0)
		liblock_unlock(t->lock);
	return NULL;
}

START_TEST(trylock_semantics)
{
	const char *name = algos[_i];
	liblock_lock_t l;
	struct try_ctx t = {&l, -1};
	pthread_t th;

	if (!(caps_of(name) & LIBLOCK_CAP_LOCK))
		return; /* covered by lock_api_mutual_exclusion */
	init_lock(&l, name);
	ck_assert_int_eq(liblock_trylock(&l), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, try_from_other_thread, &t),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.result, EBUSY);
	ck_assert_int_eq(liblock_destroy(&l), EBUSY); /* held: refused */
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, try_from_other_thread, &t),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.result, 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* ---- timed lock --------------------------------------------------------- */

struct timed_ctx {
	liblock_lock_t *lock;
	clockid_t clock;
	long wait_ms;  /* deadline: now + wait_ms on @clock */
	long bad_nsec; /* tv_nsec of the deadline, when not 0 */
	int result;
	double waited_ms; /* how long the call took */
};

static double ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

static void *timed_from_other_thread(void *arg)
{
	struct timed_ctx *t = arg;
	struct timespec dl, start;

	clock_gettime(t->clock == CLOCK_PROCESS_CPUTIME_ID ? CLOCK_REALTIME
							   : t->clock,
		      &dl);
	dl.tv_sec += t->wait_ms / 1000;
	dl.tv_nsec += (t->wait_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	if (t->bad_nsec)
		dl.tv_nsec = t->bad_nsec;
	clock_gettime(CLOCK_MONOTONIC, &start);
	t->result = t->clock == CLOCK_REALTIME
			    ? liblock_timedlock(t->lock, &dl)
			    : liblock_clocklock(t->lock, t->clock, &dl);
	t->waited_ms = ms_since(&start);
	if (t->result == 0)
		liblock_unlock(t->lock);
	return NULL;
}

static struct timed_ctx timed_try(liblock_lock_t *l, clockid_t clock,
				  long wait_ms, long bad_nsec,
				  long release_after_ms)
{
	struct timed_ctx t = {l, clock, wait_ms, bad_nsec, -1, 0};
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, timed_from_other_thread, &t),
			 0);
	if (release_after_ms >= 0) {
		usleep(release_after_ms * 1000);
		ck_assert_int_eq(liblock_unlock(l), 0);
	}
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	return t;
}

/* liblock_timedlock()/clocklock() answer as pthread_mutex_timedlock()
 * does: the lock when it is free (whatever the deadline), ETIMEDOUT no
 * earlier than the deadline when another thread keeps it, the lock when
 * it is released in time, EINVAL for a malformed deadline or clock on a
 * busy lock, ENOTSUP without a lock word. */
START_TEST(timedlock_semantics)
{
	const char *name = algos[_i];
	struct timespec past = {0, 0};
	liblock_lock_t l;
	struct timed_ctx t;

	init_lock(&l, name);
	if (!(caps_of(name) & LIBLOCK_CAP_LOCK)) {
		ck_assert_int_eq(liblock_timedlock(&l, &past), ENOTSUP);
		ck_assert_int_eq(liblock_destroy(&l), 0);
		return;
	}
	ck_assert_int_eq(liblock_timedlock(&l, &past), 0); /* free */
	ck_assert_int_eq(liblock_unlock(&l), 0);

	ck_assert_int_eq(liblock_lock(&l), 0);
	t = timed_try(&l, CLOCK_REALTIME, 30, 0, -1);
	ck_assert_int_eq(t.result, ETIMEDOUT);
	ck_assert_msg(t.waited_ms >= 29, "timed out after %.1f ms of 30",
		      t.waited_ms);
	t = timed_try(&l, CLOCK_MONOTONIC, 30, 0, -1);
	ck_assert_int_eq(t.result, ETIMEDOUT);
	ck_assert_msg(t.waited_ms >= 29, "timed out after %.1f ms of 30",
		      t.waited_ms);
	t = timed_try(&l, CLOCK_REALTIME, 30, 1000000000L, -1);
	ck_assert_int_eq(t.result, EINVAL);
	t = timed_try(&l, CLOCK_PROCESS_CPUTIME_ID, 30, 0, -1);
	ck_assert_int_eq(t.result, EINVAL);
	/* released 20 ms into a 60 s wait: taken then */
	t = timed_try(&l, CLOCK_MONOTONIC, 60000, 0, 20);
	ck_assert_int_eq(t.result, 0);
	ck_assert_msg(t.waited_ms < 30000,
		      "waited %.1f ms for a lock "
		      "released after 20",
		      t.waited_ms);
	ck_assert_int_eq(liblock_lock(&l), 0);
	t = timed_try(&l, CLOCK_REALTIME, 60000, 0, 20);
	ck_assert_int_eq(t.result, 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

static void *unlock_from_other_thread(void *arg)
{
	struct try_ctx *t = arg;

	t->result = liblock_unlock(t->lock);
	return NULL;
}

START_TEST(unlock_by_non_owner)
{
	const char *name = algos[_i];
	liblock_lock_t l;
	struct try_ctx t = {&l, -1};
	pthread_t th;
	FILE *said;
	char text[1024];
	size_t n;
	int saved;

	if (!(caps_of(name) & LIBLOCK_CAP_OWNER))
		return;
	init_lock(&l, name);
	ck_assert_int_eq(liblock_lock(&l), 0);
	/* the refusal is said, once per process (each test runs in its
	 * own process but with CK_FORK=no), unless LIBLOCK_LOG=error */
	fflush(stderr);
	ck_assert_int_ne(saved = dup(2), -1);
	ck_assert_ptr_nonnull(said = tmpfile());
	ck_assert_int_ne(dup2(fileno(said), 2), -1);
	ck_assert_int_eq(
		pthread_create(&th, NULL, unlock_from_other_thread, &t), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	fflush(stderr);
	ck_assert_int_ne(dup2(saved, 2), -1);
	close(saved);
	ck_assert_int_eq(t.result, EPERM);
	rewind(said);
	n = fread(text, 1, sizeof(text) - 1, said);
	text[n] = '\0';
	fclose(said);
	if ((!getenv("CK_FORK") || strcmp(getenv("CK_FORK"), "no") != 0) &&
	    (!getenv("LIBLOCK_LOG") || strcmp(getenv("LIBLOCK_LOG"), "error")))
		ck_assert_msg(strstr(text, "which it does not hold") != NULL,
			      "%s: no warning for the refused unlock: '%s'",
			      name, text);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* ---- recursive and error-checking locks --------------------------------- */

static void init_typed(liblock_lock_t *l, const char *name, unsigned int type)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED | type;
	ck_assert_msg(liblock_init(l, &attr) == 0, "init %s", name);
}

static void *bump(void *arg)
{
	++*(int *)arg;
	return arg;
}

struct wake_ctx {
	liblock_lock_t *lock;
	liblock_cond_t cond;
	int done; /* under lock */
};

static void *signal_under_lock(void *arg)
{
	struct wake_ctx *w = arg;

	ck_assert_int_eq(liblock_lock(w->lock), 0);
	w->done = 1;
	ck_assert_int_eq(liblock_cond_signal(&w->cond), 0);
	ck_assert_int_eq(liblock_unlock(w->lock), 0);
	return NULL;
}

/* Every level a recursive lock's holder takes (lock, trylock, timedlock,
 * a section run in place) needs its own unlock; another thread gets the
 * lock only after the last one; a condition wait lets go of every level
 * and gives them all back. */
START_TEST(recursive_semantics)
{
	const char *name = algos[_i];
	struct timespec past = {0, 0}, soon;
	liblock_lock_t l;
	struct try_ctx t = {&l, -1};
	struct wake_ctx w = {&l, LIBLOCK_COND_INITIALIZER, 0};
	pthread_t th;
	int runs = 0;

	init_typed(&l, name, LIBLOCK_ATTR_RECURSIVE);
	if (!(caps_of(name) & LIBLOCK_CAP_LOCK)) {
		/* no lock word: sections only, as for any lock */
		ck_assert_int_eq(liblock_lock(&l), ENOTSUP);
		ck_assert_ptr_eq(liblock_exec(&l, bump, &runs), &runs);
		ck_assert_int_eq(runs, 1);
		ck_assert_int_eq(liblock_destroy(&l), 0);
		return;
	}
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_trylock(&l), 0);
	ck_assert_int_eq(liblock_timedlock(&l, &past), 0);
	/* the holder's section runs here, at once: no wait for itself */
	ck_assert_ptr_eq(liblock_exec(&l, bump, &runs), &runs);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(liblock_destroy(&l), EBUSY);
	for (int level = 4; level > 0; level--) {
		ck_assert_int_eq(
			pthread_create(&th, NULL, try_from_other_thread, &t),
			0);
		ck_assert_int_eq(pthread_join(th, NULL), 0);
		ck_assert_msg(t.result == EBUSY,
			      "%s: trylock by another thread at level %d: %d",
			      name, level, t.result);
		ck_assert_int_eq(liblock_unlock(&l), 0);
	}
	ck_assert_int_eq(liblock_unlock(&l), EPERM);
	ck_assert_int_eq(pthread_create(&th, NULL, try_from_other_thread, &t),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.result, 0);

	/* a wait at level 2 releases both: another thread takes the lock
	 * and signals while this one still waits */
	ck_assert_int_eq(liblock_cond_init(&w.cond, NULL), 0);
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_lock(&l), 0);
	clock_gettime(CLOCK_REALTIME, &soon);
	soon.tv_sec += 30;
	ck_assert_int_eq(pthread_create(&th, NULL, signal_under_lock, &w), 0);
	while (!w.done)
		ck_assert_int_eq(liblock_cond_timedwait(&w.cond, &l, &soon), 0);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_unlock(&l), EPERM);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(liblock_cond_destroy(&w.cond), 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* An error-checking lock refuses its holder a second level and a thread
 * that does not hold it an unlock, with pthreads' codes, whatever the
 * algorithm; a section its holder runs releases it, as `lock; section;
 * unlock` did (the lock call failed, the unlock succeeded). */
START_TEST(errorcheck_semantics)
{
	const char *name = algos[_i];
	struct timespec past = {0, 0};
	liblock_lock_t l;
	struct try_ctx t = {&l, -1};
	pthread_t th;
	int runs = 0;

	if (!(caps_of(name) & LIBLOCK_CAP_LOCK))
		return; /* recursive_semantics covers the lock API's ENOTSUP */
	init_typed(&l, name, LIBLOCK_ATTR_ERRORCHECK);
	ck_assert_int_eq(liblock_unlock(&l), EPERM);
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_lock(&l), EDEADLK);
	ck_assert_int_eq(liblock_trylock(&l), EBUSY);
	ck_assert_int_eq(liblock_timedlock(&l, &past), EDEADLK);
	ck_assert_int_eq(
		pthread_create(&th, NULL, unlock_from_other_thread, &t), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.result, EPERM);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_unlock(&l), EPERM);

	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_ptr_eq(liblock_exec(&l, bump, &runs), &runs);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(liblock_unlock(&l), EPERM); /* the section's did */
	ck_assert_int_eq(pthread_create(&th, NULL, try_from_other_thread, &t),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.result, 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* Threads that take a recursive lock two and three levels deep, run a
 * section in place at the bottom, and others whose sections go through
 * liblock_exec (to the server, for rcl): mutual exclusion holds, and no
 * thread waits for itself.  More threads than CPUs. */
struct rec_ctx {
	liblock_lock_t lock;
	struct counter_ctx *c;
	int iterations;
};

static void *rec_worker(void *arg)
{
	struct rec_ctx *r = *(struct rec_ctx **)arg;

	for (int i = 0; i < r->iterations; i++) {
		if (i % 3 == 2) {
			ck_assert_ptr_eq(
				liblock_exec(&r->lock, section_fn, r->c), r->c);
			continue;
		}
		ck_assert_int_eq(liblock_lock(&r->lock), 0);
		ck_assert_int_eq(i % 3 ? liblock_trylock(&r->lock)
				       : liblock_lock(&r->lock),
				 0);
		section_body(r->c);
		ck_assert_ptr_eq(liblock_exec(&r->lock, section_fn, r->c),
				 r->c);
		ck_assert_int_eq(liblock_unlock(&r->lock), 0);
		section_body(r->c);
		ck_assert_int_eq(liblock_unlock(&r->lock), 0);
	}
	return NULL;
}

START_TEST(recursive_stress)
{
	enum { THREADS = 6 };
	struct rec_ctx *r = calloc(1, sizeof(*r));
	struct rec_ctx *args[THREADS];
	uint64_t per_thread;

	if (!(caps_of(algos[_i]) & LIBLOCK_CAP_LOCK)) {
		free(r);
		return;
	}
	ck_assert_ptr_nonnull(r);
	r->c = calloc(1, sizeof(*r->c));
	ck_assert_ptr_nonnull(r->c);
	init_typed(&r->lock, algos[_i], LIBLOCK_ATTR_RECURSIVE);
	r->iterations = 3000 * scale;
	for (int i = 0; i < THREADS; i++)
		args[i] = r;
	run_threads(THREADS, rec_worker, args, sizeof(args[0]));
	/* 3 sections per held iteration, 1 per delegated one */
	per_thread = (uint64_t)(r->iterations / 3) * 7 +
		     (uint64_t)(r->iterations % 3 > 0 ? 3 : 0) +
		     (uint64_t)(r->iterations % 3 > 1 ? 3 : 0);
	ck_assert_int_eq(atomic_load(&r->c->overlaps), 0);
	for (int i = 0; i < TEST_LINES; i++)
		ck_assert_uint_eq(r->c->data.line[i].value,
				  THREADS * per_thread);
	ck_assert_int_eq(liblock_destroy(&r->lock), 0);
	free(r->c);
	free(r);
}
END_TEST

/* LIBLOCK_INITIALIZER_FLAGS: a recursive lock with no init call. */
START_TEST(recursive_static_initializer)
{
	liblock_lock_t l = LIBLOCK_INITIALIZER_FLAGS(
		NULL, LIBLOCK_SERVER_DEFAULT,
		LIBLOCK_ATTR_FIXED | LIBLOCK_ATTR_RECURSIVE);

	if (!(caps_of(algos[_i]) & LIBLOCK_CAP_LOCK))
		return;
	l._algorithm = algos[_i];
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_int_eq(liblock_lock(&l), 0);
	ck_assert_str_eq(liblock_lock_algorithm(&l), algos[_i]);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_unlock(&l), 0);
	ck_assert_int_eq(liblock_unlock(&l), EPERM);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}
END_TEST

/* ---- condition variables (inside liblock_exec sections) ---------------- */

#define QUEUE_CAP 8

struct pc_ctx {
	liblock_lock_t lock;
	liblock_cond_t not_empty, not_full;
	int queue[QUEUE_CAP];
	int head, count;
	int produced_per_thread;
	long sum_consumed;
	int consumed;
	int total;
};

struct pc_op {
	struct pc_ctx *pc;
	int value; /* in: item to put; out: item taken (-1 when done) */
};

static void *put_cs(void *arg)
{
	struct pc_op *op = arg;
	struct pc_ctx *pc = op->pc;

	while (pc->count == QUEUE_CAP)
		ck_assert_int_eq(liblock_cond_wait(&pc->not_full, &pc->lock),
				 0);
	pc->queue[(pc->head + pc->count) % QUEUE_CAP] = op->value;
	pc->count++;
	liblock_cond_signal(&pc->not_empty);
	return NULL;
}

static void *take_cs(void *arg)
{
	struct pc_op *op = arg;
	struct pc_ctx *pc = op->pc;

	while (pc->count == 0 && pc->consumed < pc->total)
		ck_assert_int_eq(liblock_cond_wait(&pc->not_empty, &pc->lock),
				 0);
	if (pc->count == 0) {
		op->value = -1; /* everything consumed */
		return NULL;
	}
	op->value = pc->queue[pc->head];
	pc->head = (pc->head + 1) % QUEUE_CAP;
	pc->count--;
	pc->consumed++;
	pc->sum_consumed += op->value;
	if (pc->consumed == pc->total) /* release every idle consumer */
		liblock_cond_broadcast(&pc->not_empty);
	liblock_cond_signal(&pc->not_full);
	return NULL;
}

static void *producer(void *arg)
{
	struct pc_ctx *pc = *(struct pc_ctx **)arg;
	struct pc_op op = {pc, 0};

	for (int i = 1; i <= pc->produced_per_thread; i++) {
		op.value = i;
		liblock_exec(&pc->lock, put_cs, &op);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct pc_ctx *pc = *(struct pc_ctx **)arg;
	struct pc_op op = {pc, 0};

	do
		liblock_exec(&pc->lock, take_cs, &op);
	while (op.value != -1);
	return NULL;
}

START_TEST(cond_producer_consumer)
{
	enum { PRODUCERS = 3, CONSUMERS = 5 };
	struct pc_ctx *pc = calloc(1, sizeof(*pc));
	struct pc_ctx *args[PRODUCERS + CONSUMERS];
	pthread_t t[PRODUCERS + CONSUMERS];
	long n;

	ck_assert_ptr_nonnull(pc);
	init_lock(&pc->lock, algos[_i]);
	ck_assert_int_eq(liblock_cond_init(&pc->not_empty, NULL), 0);
	ck_assert_int_eq(liblock_cond_init(&pc->not_full, NULL), 0);
	pc->produced_per_thread = 2000 * scale;
	pc->total = PRODUCERS * pc->produced_per_thread;
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
		args[i] = pc;
		ck_assert_int_eq(
			pthread_create(&t[i], NULL,
				       i < PRODUCERS ? producer : consumer,
				       &args[i]),
			0);
	}
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	n = pc->produced_per_thread;
	ck_assert_int_eq(pc->consumed, pc->total);
	ck_assert_int_eq(pc->sum_consumed, PRODUCERS * n * (n + 1) / 2);
	ck_assert_int_eq(liblock_cond_destroy(&pc->not_empty), 0);
	ck_assert_int_eq(liblock_cond_destroy(&pc->not_full), 0);
	ck_assert_int_eq(liblock_destroy(&pc->lock), 0);
	free(pc);
}
END_TEST

/* Broadcast wakes every waiter; timed waits time out. */
struct bc_ctx {
	liblock_lock_t lock;
	liblock_cond_t cond;
	int go;
	int waiting;
	int woken;
};

static void *bc_wait_cs(void *arg)
{
	struct bc_ctx *b = arg;

	b->waiting++;
	while (!b->go)
		ck_assert_int_eq(liblock_cond_wait(&b->cond, &b->lock), 0);
	b->woken++;
	return NULL;
}

static void *bc_count_cs(void *arg)
{
	struct bc_ctx *b = arg;

	return (void *)(intptr_t)b->waiting;
}

static void *bc_go_cs(void *arg)
{
	struct bc_ctx *b = arg;

	b->go = 1;
	liblock_cond_broadcast(&b->cond);
	return NULL;
}

static void *bc_waiter(void *arg)
{
	struct bc_ctx *b = *(struct bc_ctx **)arg;

	liblock_exec(&b->lock, bc_wait_cs, b);
	return NULL;
}

START_TEST(cond_broadcast_wakes_all)
{
	enum { WAITERS = 12 };
	struct bc_ctx *b = calloc(1, sizeof(*b));
	struct bc_ctx *args[WAITERS];
	pthread_t t[WAITERS];

	ck_assert_ptr_nonnull(b);
	init_lock(&b->lock, algos[_i]);
	ck_assert_int_eq(liblock_cond_init(&b->cond, NULL), 0);
	for (int i = 0; i < WAITERS; i++) {
		args[i] = b;
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, bc_waiter, &args[i]), 0);
	}
	while ((intptr_t)liblock_exec(&b->lock, bc_count_cs, b) < WAITERS)
		usleep(1000);
	liblock_exec(&b->lock, bc_go_cs, b);
	for (int i = 0; i < WAITERS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(b->woken, WAITERS);
	ck_assert_int_eq(liblock_cond_destroy(&b->cond), 0);
	ck_assert_int_eq(liblock_destroy(&b->lock), 0);
	free(b);
}
END_TEST

struct tw_ctx {
	liblock_lock_t lock;
	liblock_cond_t cond;
	struct timespec deadline;
	int rc;
};

static void *timed_wait_cs(void *arg)
{
	struct tw_ctx *w = arg;

	w->rc = liblock_cond_timedwait(&w->cond, &w->lock, &w->deadline);
	return NULL;
}

START_TEST(cond_timedwait_times_out)
{
	struct tw_ctx w;
	struct timespec before, after;
	pthread_condattr_t ca;
	double waited;

	init_lock(&w.lock, algos[_i]);
	ck_assert_int_eq(pthread_condattr_init(&ca), 0);
	ck_assert_int_eq(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC), 0);
	ck_assert_int_eq(liblock_cond_init(&w.cond, &ca), 0);
	clock_gettime(CLOCK_MONOTONIC, &before);
	w.deadline = before;
	w.deadline.tv_nsec += 50 * 1000 * 1000;
	if (w.deadline.tv_nsec >= 1000000000L) {
		w.deadline.tv_sec++;
		w.deadline.tv_nsec -= 1000000000L;
	}
	liblock_exec(&w.lock, timed_wait_cs, &w);
	clock_gettime(CLOCK_MONOTONIC, &after);
	waited = (double)(after.tv_sec - before.tv_sec) +
		 (double)(after.tv_nsec - before.tv_nsec) / 1e9;
	ck_assert_int_eq(w.rc, ETIMEDOUT);
	ck_assert(waited >= 0.049);
	ck_assert(waited < 5.0);
	/* malformed deadline */
	w.deadline.tv_nsec = 2000000000L;
	liblock_exec(&w.lock, timed_wait_cs, &w);
	ck_assert_int_eq(w.rc, EINVAL);
	ck_assert_int_eq(liblock_cond_destroy(&w.cond), 0);
	ck_assert_int_eq(liblock_destroy(&w.lock), 0);
}
END_TEST

/* ---- nesting: a section of A runs a section of B ------------------------ */

struct nest_ctx {
	liblock_lock_t a, b;
	uint64_t in_a, in_b;
	int iterations;
};

static void *inner_cs(void *arg)
{
	((struct nest_ctx *)arg)->in_b++;
	return NULL;
}

static void *outer_cs(void *arg)
{
	struct nest_ctx *n = arg;

	n->in_a++;
	liblock_exec(&n->b, inner_cs, n);
	return NULL;
}

static void *nest_worker(void *arg)
{
	struct nest_ctx *n = *(struct nest_ctx **)arg;

	for (int i = 0; i < n->iterations; i++) {
		liblock_exec(&n->a, outer_cs, n);
		liblock_exec(&n->b, inner_cs, n);
	}
	return NULL;
}

START_TEST(nested_locks)
{
	enum { THREADS = 4 };
	struct nest_ctx *n = calloc(1, sizeof(*n));
	struct nest_ctx *args[THREADS];

	ck_assert_ptr_nonnull(n);
	init_lock(&n->a, algos[_i]);
	init_lock(&n->b, algos[_i]);
	n->iterations = 5000 * scale;
	for (int i = 0; i < THREADS; i++)
		args[i] = n;
	run_threads(THREADS, nest_worker, args, sizeof(args[0]));
	ck_assert_uint_eq(n->in_a, (uint64_t)THREADS * n->iterations);
	ck_assert_uint_eq(n->in_b, (uint64_t)THREADS * n->iterations * 2);
	ck_assert_int_eq(liblock_destroy(&n->a), 0);
	ck_assert_int_eq(liblock_destroy(&n->b), 0);
	free(n);
}
END_TEST

/* ---- thread churn: queue nodes and client ids are recycled -------------- */

START_TEST(thread_churn)
{
	enum { BATCH = 8 };
	int rounds = 250; /* 2,000 threads */
	struct counter_ctx *c = calloc(1, sizeof(*c));
	struct counter_ctx *args[BATCH];

	ck_assert_ptr_nonnull(c);
	init_lock(&c->lock, algos[_i]);
	c->iterations = 10;
	for (int i = 0; i < BATCH; i++)
		args[i] = c;
	for (int r = 0; r < rounds; r++)
		run_threads(BATCH, counter_worker, args, sizeof(args[0]));
	for (int i = 0; i < TEST_LINES; i++)
		ck_assert_uint_eq(c->data.line[i].value,
				  (uint64_t)rounds * BATCH * 10);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

/* ---- static initialisation, concurrent first use ------------------------ */

static void *static_worker(void *arg)
{
	struct counter_ctx *c = *(struct counter_ctx **)arg;

	for (int i = 0; i < c->iterations; i++)
		liblock_exec(&c->lock, section_fn, c);
	return NULL;
}

START_TEST(static_initializer_first_use)
{
	enum { THREADS = 6 };
	struct counter_ctx *c = calloc(1, sizeof(*c));
	struct counter_ctx *args[THREADS];
	liblock_lock_t init =
		LIBLOCK_INITIALIZER_ALGO(NULL, LIBLOCK_SERVER_DEFAULT);

	ck_assert_ptr_nonnull(c);
	init._algorithm = algos[_i];
	init._flags = LIBLOCK_ATTR_FIXED;
	memcpy(&c->lock, &init, sizeof(init));
	c->iterations = 2000;
	for (int i = 0; i < THREADS; i++)
		args[i] = c;
	run_threads(THREADS, static_worker, args, sizeof(args[0]));
	ck_assert_str_eq(liblock_lock_algorithm(&c->lock), algos[_i]);
	for (int i = 0; i < TEST_LINES; i++)
		ck_assert_uint_eq(c->data.line[i].value, THREADS * 2000u);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static void pick_algorithms(void)
{
	const char *const *all = liblock_algorithms();
	const char *only = getenv("LIBLOCK_TEST_ALGOS");
	const char *s = getenv("LIBLOCK_TEST_SCALE");

	if (s && atoi(s) > 0)
		scale = atoi(s);
	for (int i = 0; all[i]; i++) {
		if (only && *only) {
			char name[256], list[1024];

			snprintf(name, sizeof(name), ",%s,", all[i]);
			snprintf(list, sizeof(list), ",%s,", only);
			if (!strstr(list, name))
				continue;
		}
		algos[nalgos++] = all[i];
	}
}

int main(void)
{
	Suite *s = suite_create("liblock stress (every algorithm)");
	struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{"exec", exec_mutual_exclusion},
		{"lock_api", lock_api_mutual_exclusion},
		{"oversubscribed", oversubscribed},
		{"trylock", trylock_semantics},
		{"timedlock", timedlock_semantics},
		{"non_owner_unlock", unlock_by_non_owner},
		{"recursive", recursive_semantics},
		{"errorcheck", errorcheck_semantics},
		{"recursive_stress", recursive_stress},
		{"recursive_static", recursive_static_initializer},
		{"cond_producer_consumer", cond_producer_consumer},
		{"cond_broadcast", cond_broadcast_wakes_all},
		{"cond_timedwait", cond_timedwait_times_out},
		{"nested", nested_locks},
		{"thread_churn", thread_churn},
		{"static_init", static_initializer_first_use},
	};
	SRunner *sr;
	int failed;

	pick_algorithms();
	if (nalgos == 0) {
		fprintf(stderr, "t_stress_all: no algorithm matches "
				"$LIBLOCK_TEST_ALGOS\n");
		return 1;
	}
	for (int i = 0; i < nalgos; i++)
		printf("# loop index %d = %s\n", i, algos[i]);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		TCase *tc = tcase_create(tests[i].name);

		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, tests[i].test, 0, nalgos);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
