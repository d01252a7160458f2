/* SPDX-License-Identifier: MIT */
/* pt_work modes: mutex types, 5,000 threads, every wrapper reached. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "pt.h"

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;

	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static void init_typed(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;

	CHECK(pthread_mutexattr_init(&a));
	CHECK(pthread_mutexattr_settype(&a, type));
	CHECK(pthread_mutex_init(m, &a));
	CHECK(pthread_mutexattr_destroy(&a));
}

/* ---- types -------------------------------------------------------------- */

static pthread_mutex_t held;
static pthread_mutex_t static_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t static_chk = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

/* From another thread: what does a held mutex look like? */
static void *probe_held(void *arg)
{
	struct timespec t = in_ms(CLOCK_REALTIME, 30);
	struct timespec mt = in_ms(CLOCK_MONOTONIC, 30);

	EXPECT(pthread_mutex_trylock(&held), EBUSY);
	EXPECT(pthread_mutex_timedlock(&held, &t), ETIMEDOUT);
	EXPECT(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &mt), ETIMEDOUT);
	if (arg) /* checked types: not the owner */
		EXPECT(pthread_mutex_unlock(&held), EPERM);
	return NULL;
}

static void probe_from_thread(int checked)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, probe_held, checked ? &held : NULL));
	CHECK(pthread_join(t, NULL));
}

static void type_plain(int type)
{
	init_typed(&held, type);
	CHECK(pthread_mutex_lock(&held));
	EXPECT(pthread_mutex_trylock(&held), EBUSY);
	probe_from_thread(0);
	CHECK(pthread_mutex_unlock(&held));
	CHECK(pthread_mutex_trylock(&held));
	CHECK(pthread_mutex_unlock(&held));
	/* re-init without destroy (memory reused): must still work */
	init_typed(&held, type);
	CHECK(pthread_mutex_lock(&held));
	CHECK(pthread_mutex_unlock(&held));
	CHECK(pthread_mutex_destroy(&held));
}

static void type_errorcheck(void)
{
	init_typed(&held, PTHREAD_MUTEX_ERRORCHECK);
	EXPECT(pthread_mutex_unlock(&held), EPERM);
	CHECK(pthread_mutex_lock(&held));
	EXPECT(pthread_mutex_lock(&held), EDEADLK);
	EXPECT(pthread_mutex_trylock(&held), EBUSY);
	probe_from_thread(1);
	EXPECT(pthread_mutex_destroy(&held), EBUSY);
	CHECK(pthread_mutex_unlock(&held));
	EXPECT(pthread_mutex_unlock(&held), EPERM);
	CHECK(pthread_mutex_destroy(&held));

	CHECK(pthread_mutex_lock(&static_chk));
	EXPECT(pthread_mutex_lock(&static_chk), EDEADLK);
	CHECK(pthread_mutex_unlock(&static_chk));
	EXPECT(pthread_mutex_unlock(&static_chk), EPERM);
}

static pthread_cond_t rec_cond = PTHREAD_COND_INITIALIZER;
static int rec_flag;
static long rec_count;

static void *rec_worker(void *arg)
{
	for (int i = 0; i < 500 * scale; i++) {
		CHECK(pthread_mutex_lock(&held));
		CHECK(pthread_mutex_lock(&held));
		rec_count++;
		CHECK(pthread_mutex_unlock(&held));
		CHECK(pthread_mutex_unlock(&held));
	}
	if (arg) {
		CHECK(pthread_mutex_lock(&held));
		rec_flag = 1;
		CHECK(pthread_cond_signal(&rec_cond));
		CHECK(pthread_mutex_unlock(&held));
	}
	return NULL;
}

static void type_recursive(void)
{
	pthread_t t[3];

	init_typed(&held, PTHREAD_MUTEX_RECURSIVE);
	CHECK(pthread_mutex_lock(&held));
	CHECK(pthread_mutex_lock(&held));
	CHECK(pthread_mutex_trylock(&held));
	probe_from_thread(1);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_mutex_unlock(&held));
	EXPECT(pthread_mutex_unlock(&held), EPERM);
	/* contention on a recursive mutex, and a cond wait with it held */
	CHECK(pthread_mutex_lock(&held));
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, rec_worker,
				     i == 0 ? &held : NULL));
	while (!rec_flag)
		CHECK(pthread_cond_wait(&rec_cond, &held));
	CHECK(pthread_mutex_unlock(&held));
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL));
	if (rec_count != 3L * 500 * scale)
		FAIL("recursive: count %ld", rec_count);
	CHECK(pthread_mutex_destroy(&held));

	CHECK(pthread_mutex_lock(&static_rec));
	CHECK(pthread_mutex_lock(&static_rec));
	CHECK(pthread_mutex_unlock(&static_rec));
	CHECK(pthread_mutex_unlock(&static_rec));
	EXPECT(pthread_mutex_unlock(&static_rec), EPERM);
}

/* Another thread has used two mutexes (rcl-run caches their records per
 * thread); they are destroyed, one's record goes to a new mutex, and both
 * are re-initialised with other types: that thread must see the new
 * types, not its cached records. */
static pthread_mutex_t reuse_a, reuse_b;
static pthread_barrier_t reuse_bar;

static void *reuse_worker(void *arg)
{
	struct timespec t;

	(void)arg;
	CHECK(pthread_mutex_lock(&reuse_a));
	CHECK(pthread_mutex_unlock(&reuse_a));
	CHECK(pthread_mutex_lock(&reuse_b));
	CHECK(pthread_mutex_unlock(&reuse_b));
	pthread_barrier_wait(&reuse_bar);
	pthread_barrier_wait(&reuse_bar); /* re-created meanwhile */
	t = in_ms(CLOCK_REALTIME, 200);
	CHECK(pthread_mutex_lock(&reuse_a));
	EXPECT(pthread_mutex_timedlock(&reuse_a, &t), EDEADLK);
	CHECK(pthread_mutex_unlock(&reuse_a));
	EXPECT(pthread_mutex_unlock(&reuse_a), EPERM);
	CHECK(pthread_mutex_lock(&reuse_b));
	CHECK(pthread_mutex_trylock(&reuse_b));
	CHECK(pthread_mutex_unlock(&reuse_b));
	CHECK(pthread_mutex_unlock(&reuse_b));
	EXPECT(pthread_mutex_unlock(&reuse_b), EPERM);
	return NULL;
}

static void type_reuse(void)
{
	pthread_mutex_t other;
	pthread_t t;

	CHECK(pthread_barrier_init(&reuse_bar, NULL, 2));
	CHECK(pthread_mutex_init(&reuse_a, NULL));
	CHECK(pthread_mutex_init(&reuse_b, NULL));
	CHECK(pthread_create(&t, NULL, reuse_worker, NULL));
	pthread_barrier_wait(&reuse_bar);
	CHECK(pthread_mutex_destroy(&reuse_a));
	CHECK(pthread_mutex_destroy(&reuse_b));
	CHECK(pthread_mutex_init(&other, NULL));
	init_typed(&reuse_a, PTHREAD_MUTEX_ERRORCHECK);
	init_typed(&reuse_b, PTHREAD_MUTEX_RECURSIVE);
	pthread_barrier_wait(&reuse_bar);
	CHECK(pthread_join(t, NULL));
	CHECK(pthread_mutex_lock(&other));
	CHECK(pthread_mutex_unlock(&other));
	CHECK(pthread_mutex_destroy(&other));
	CHECK(pthread_mutex_destroy(&reuse_a));
	CHECK(pthread_mutex_destroy(&reuse_b));
	CHECK(pthread_barrier_destroy(&reuse_bar));
}

void types(void)
{
	type_plain(PTHREAD_MUTEX_NORMAL);
	type_plain(PTHREAD_MUTEX_DEFAULT);
	type_errorcheck();
	type_recursive();
	type_reuse();
}

/* ---- threads ------------------------------------------------------------ */

#define NTHREADS 5000
#define WAVE 250

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t wave_lock;
static pthread_cond_t wave_cond;
static long big_count;
static int wave_done;

static void *wave_worker(void *arg)
{
	CHECK(pthread_mutex_lock(&big_lock));
	big_count++;
	CHECK(pthread_mutex_unlock(&big_lock));
	while (pthread_mutex_trylock(&big_lock) == EBUSY)
		sched_yield();
	big_count++;
	CHECK(pthread_mutex_unlock(&big_lock));
	CHECK(pthread_mutex_lock(&wave_lock));
	wave_done++;
	CHECK(pthread_cond_signal(&wave_cond));
	CHECK(pthread_mutex_unlock(&wave_lock));
	return arg;
}

void threads(void)
{
	static pthread_t t[WAVE];

	for (int w = 0; w < NTHREADS / WAVE; w++) {
		CHECK(pthread_mutex_init(&wave_lock, NULL));
		CHECK(pthread_cond_init(&wave_cond, NULL));
		wave_done = 0;
		for (int i = 0; i < WAVE; i++)
			CHECK(pthread_create(&t[i], NULL, wave_worker, NULL));
		CHECK(pthread_mutex_lock(&wave_lock));
		while (wave_done < WAVE)
			CHECK(pthread_cond_wait(&wave_cond, &wave_lock));
		CHECK(pthread_mutex_unlock(&wave_lock));
		for (int i = 0; i < WAVE; i++)
			CHECK(pthread_join(t[i], NULL));
		CHECK(pthread_cond_destroy(&wave_cond));
		CHECK(pthread_mutex_destroy(&wave_lock));
	}
	if (big_count != 2L * NTHREADS)
		FAIL("threads: count %ld, want %d", big_count, 2 * NTHREADS);
}
