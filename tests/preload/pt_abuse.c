/* SPDX-License-Identifier: MIT */
/*
 * Legacy idioms and abuse that glibc tolerates, one mode per case; the
 * test (t_abuse.sh) runs each without and with rcl-run and compares the
 * output and exit status.  Usage: pt_abuse MODE [ARG], MODE one of
 *   copy     mutexes (each type) initialised in a prototype, copied by
 *            struct assignment and memcpy before first use, in recycled
 *            (garbage) and in zeroed heap memory, used by 4 threads
 *   reuse    memory freed while its mutex was locked, reused as a new
 *            mutex: zeroed, or re-initialised with another type
 *   cancel   pthread_cancel of threads in pthread_cond_wait and
 *            pthread_cond_timedwait, whose cleanup handler unlocks
 *   handover a normal mutex locked by one thread, unlocked by another
 *   ctor     a library's constructor used mutexes (ptlib.c)
 *   dlopen   dlopen(ARG) of that library, then its threads
 *   signal   mutexes created and locked from a SIGEV_THREAD timer's
 *            thread and from a sigwait() thread
 *   many N   N per-object mutexes, each initialised, locked twice
 *   inflate R  R rounds of a fresh mutex taken at once by more threads
 *            than CPUs (lock, trylock, timedlock, condition waits)
 * Prints one line per check; exits 0, or 1 with a one-line reason.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pt.h"

int scale = 1;

static void init_typed(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;

	CHECK(pthread_mutexattr_init(&a));
	CHECK(pthread_mutexattr_settype(&a, type));
	CHECK(pthread_mutex_init(m, &a));
	CHECK(pthread_mutexattr_destroy(&a));
}

static const char *type_name(int type)
{
	switch (type) {
	case PTHREAD_MUTEX_RECURSIVE:
		return "recursive";
	case PTHREAD_MUTEX_ERRORCHECK:
		return "errorcheck";
	case PTHREAD_MUTEX_DEFAULT:
		return "default";
	default:
		return "normal";
	}
}

/* What a held mutex of @type does when its holder locks it again. */
static void relock_check(pthread_mutex_t *m, int type)
{
	CHECK(pthread_mutex_lock(m));
	if (type == PTHREAD_MUTEX_RECURSIVE) {
		CHECK(pthread_mutex_lock(m));
		CHECK(pthread_mutex_unlock(m));
	} else if (type == PTHREAD_MUTEX_ERRORCHECK) {
		EXPECT(pthread_mutex_lock(m), EDEADLK);
	}
	EXPECT(pthread_mutex_trylock(m),
	       type == PTHREAD_MUTEX_RECURSIVE ? 0 : EBUSY);
	if (type == PTHREAD_MUTEX_RECURSIVE)
		CHECK(pthread_mutex_unlock(m));
	CHECK(pthread_mutex_unlock(m));
	if (type == PTHREAD_MUTEX_ERRORCHECK)
		EXPECT(pthread_mutex_unlock(m), EPERM);
}

/* ---- copy --------------------------------------------------------------- */

#define OBJS 64
#define COPY_THREADS 4
#define COPY_ITERS 20000

struct obj {
	long pad0;
	pthread_mutex_t m;
	long count;
};

static struct obj *objs;
static int objs_type;

static void *copy_worker(void *arg)
{
	unsigned int seed = (unsigned int)(size_t)arg;

	for (int i = 0; i < COPY_ITERS; i++) {
		struct obj *o = &objs[rand_r(&seed) % OBJS];

		CHECK(pthread_mutex_lock(&o->m));
		if (objs_type == PTHREAD_MUTEX_RECURSIVE) {
			CHECK(pthread_mutex_lock(&o->m));
			CHECK(pthread_mutex_unlock(&o->m));
		}
		o->count++;
		CHECK(pthread_mutex_unlock(&o->m));
	}
	return NULL;
}

/* @n bytes of heap that held other data (and mutexes) before. */
static void *recycled(size_t n)
{
	struct obj *junk = malloc(n);
	void *p;

	if (!junk)
		FAIL("out of memory");
	memset(junk, 0xa5, n);
	for (size_t i = 0; i < n / sizeof(*junk); i++) {
		CHECK(pthread_mutex_init(&junk[i].m, NULL));
		CHECK(pthread_mutex_lock(&junk[i].m));
		CHECK(pthread_mutex_unlock(&junk[i].m));
	}
	free(junk); /* without destroy, as legacy code does */
	if ((p = malloc(n)) == NULL)
		FAIL("out of memory");
	return p;
}

static void copy_case(int type, int zeroed, int by_memcpy)
{
	size_t n = OBJS * sizeof(struct obj);
	struct obj proto;
	pthread_t t[COPY_THREADS];
	long total = 0;

	objs = zeroed ? calloc(1, n) : recycled(n);
	if (!objs)
		FAIL("out of memory");
	memset(&proto, 0x5a, sizeof(proto));
	init_typed(&proto.m, type);
	proto.count = 0;
	for (int i = 0; i < OBJS; i++) {
		if (by_memcpy)
			memcpy(&objs[i], &proto, sizeof(proto));
		else
			objs[i] = proto;
	}
	objs_type = type;
	for (int i = 0; i < COPY_THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, copy_worker,
				     (void *)(size_t)(i + 1)));
	for (int i = 0; i < COPY_THREADS; i++)
		CHECK(pthread_join(t[i], NULL));
	for (int i = 0; i < OBJS; i++) {
		total += objs[i].count;
		relock_check(&objs[i].m, type);
	}
	relock_check(&proto.m, type);
	/* a copy of a used mutex is a new, free mutex of the same type */
	{
		struct obj *late = malloc(sizeof(*late));

		if (!late)
			FAIL("out of memory");
		CHECK(pthread_mutex_lock(&objs[0].m));
		CHECK(pthread_mutex_unlock(&objs[0].m));
		memcpy(late, &objs[0], sizeof(*late));
		relock_check(&late->m, type);
		CHECK(pthread_mutex_destroy(&late->m));
		free(late);
	}
	for (int i = 0; i < OBJS; i++)
		CHECK(pthread_mutex_destroy(&objs[i].m));
	CHECK(pthread_mutex_destroy(&proto.m));
	printf("copy %s %s %s: count %ld of %d\n", type_name(type),
	       zeroed ? "zeroed" : "recycled",
	       by_memcpy ? "memcpy" : "assignment", total,
	       COPY_THREADS * COPY_ITERS);
	if (total != COPY_THREADS * COPY_ITERS)
		FAIL("copy: lost updates");
	free(objs);
}

static const int kinds[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_DEFAULT,
			    PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK};
#define NTYPES (sizeof(kinds) / sizeof(kinds[0]))

static void copy(void)
{
	for (size_t t = 0; t < NTYPES; t++)
		for (int z = 0; z < 2; z++)
			for (int c = 0; c < 2; c++)
				copy_case(kinds[t], z, c);
}

/* ---- reuse -------------------------------------------------------------- */

static union {
	pthread_mutex_t m;
	char bytes[sizeof(pthread_mutex_t)];
} slot;

/* From another thread: is @m free? */
static void *probe_free(void *m)
{
	int rc = pthread_mutex_trylock(m);

	if (rc == 0)
		rc = pthread_mutex_unlock(m);
	return (void *)(size_t)rc;
}

static int free_elsewhere(pthread_mutex_t *m)
{
	pthread_t t;
	void *res;

	CHECK(pthread_create(&t, NULL, probe_free, m));
	CHECK(pthread_join(t, &res));
	return (int)(size_t)res;
}

static void reuse(void)
{
	for (size_t a = 0; a < NTYPES; a++) {
		for (size_t b = 0; b < NTYPES; b++) {
			/* held, then the memory is zeroed: a default mutex */
			init_typed(&slot.m, kinds[a]);
			CHECK(pthread_mutex_lock(&slot.m));
			memset(slot.bytes, 0, sizeof(slot.bytes));
			EXPECT(free_elsewhere(&slot.m), 0);
			relock_check(&slot.m, PTHREAD_MUTEX_DEFAULT);
			/* held, then re-initialised with type b */
			CHECK(pthread_mutex_lock(&slot.m));
			init_typed(&slot.m, kinds[b]);
			EXPECT(free_elsewhere(&slot.m), 0);
			relock_check(&slot.m, kinds[b]);
			/* heap: freed while locked, reused zeroed */
			{
				struct obj *o = malloc(sizeof(*o));

				if (!o)
					FAIL("out of memory");
				init_typed(&o->m, kinds[a]);
				CHECK(pthread_mutex_lock(&o->m));
				free(o);
				o = calloc(1, sizeof(*o));
				if (!o)
					FAIL("out of memory");
				EXPECT(free_elsewhere(&o->m), 0);
				relock_check(&o->m, PTHREAD_MUTEX_DEFAULT);
				CHECK(pthread_mutex_lock(&o->m));
				free(o);
				o = malloc(sizeof(*o));
				if (!o)
					FAIL("out of memory");
				init_typed(&o->m, kinds[b]);
				EXPECT(free_elsewhere(&o->m), 0);
				relock_check(&o->m, kinds[b]);
				CHECK(pthread_mutex_destroy(&o->m));
				free(o);
			}
			printf("reuse %s -> %s: ok\n", type_name(kinds[a]),
			       type_name(kinds[b]));
		}
	}
}

/* ---- cancel ------------------------------------------------------------- */

static pthread_mutex_t cm;
static pthread_cond_t cc = PTHREAD_COND_INITIALIZER;
static int c_ready, c_cleanup_rc = -1;

static void cancel_cleanup(void *arg)
{
	(void)arg;
	/* POSIX: the mutex is held again when the handler runs; an
	 * error-checking mutex says EPERM if not */
	c_cleanup_rc = pthread_mutex_unlock(&cm);
}

static void *cancel_waiter(void *timed)
{
	struct timespec t;

	CHECK(pthread_mutex_lock(&cm));
	c_ready = 1;
	CHECK(pthread_cond_broadcast(&cc));
	pthread_cleanup_push(cancel_cleanup, NULL);
	for (;;) {
		if (timed) {
			CHECK(clock_gettime(CLOCK_REALTIME, &t));
			t.tv_sec += 3600;
			pthread_cond_timedwait(&cc, &cm, &t);
		} else {
			pthread_cond_wait(&cc, &cm);
		}
	}
	pthread_cleanup_pop(1);
	return NULL;
}

static void cancel(void)
{
	for (size_t k = 0; k < NTYPES; k++) {
		for (int timed = 0; timed < 2; timed++) {
			pthread_t t;
			void *res;

			init_typed(&cm, kinds[k]);
			c_ready = 0;
			c_cleanup_rc = -1;
			CHECK(pthread_create(&t, NULL, cancel_waiter,
					     timed ? &t : NULL));
			CHECK(pthread_mutex_lock(&cm));
			while (!c_ready)
				CHECK(pthread_cond_wait(&cc, &cm));
			/* it is waiting: it released the mutex to us */
			CHECK(pthread_mutex_unlock(&cm));
			CHECK(pthread_cancel(t));
			CHECK(pthread_join(t, &res));
			if (res != PTHREAD_CANCELED)
				FAIL("cancel: thread not cancelled");
			/* and the mutex is free again */
			EXPECT(free_elsewhere(&cm), 0);
			CHECK(pthread_mutex_destroy(&cm));
			printf("cancel %s %s: cleanup unlock %d\n",
			       type_name(kinds[k]),
			       timed ? "timedwait" : "wait", c_cleanup_rc);
			if (c_cleanup_rc != 0)
				FAIL("cancel: cleanup did not hold the mutex");
		}
	}
}

/* ---- handover ----------------------------------------------------------- */

static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;
static long h_count;

static void *h_unlocker(void *arg)
{
	(void)arg;
	h_count++;
	return (void *)(size_t)pthread_mutex_unlock(&hm);
}

static void *h_contender(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		CHECK(pthread_mutex_lock(&hm));
		h_count++;
		CHECK(pthread_mutex_unlock(&hm));
	}
	return NULL;
}

static void handover(void)
{
	pthread_t u, c;
	void *res;
	int bad = 0;

	for (int i = 0; i < 200; i++) {
		CHECK(pthread_mutex_lock(&hm));
		if (i == 100)
			CHECK(pthread_create(&c, NULL, h_contender, NULL));
		CHECK(pthread_create(&u, NULL, h_unlocker, NULL));
		CHECK(pthread_join(u, &res));
		bad += res != NULL;
	}
	CHECK(pthread_join(c, NULL));
	CHECK(pthread_mutex_lock(&hm));
	CHECK(pthread_mutex_unlock(&hm));
	printf("handover: %d refused, count %ld\n", bad, h_count);
	if (h_count != 1200)
		FAIL("handover: count %ld, want 1200", h_count);
}

/* ---- ctor, dlopen ------------------------------------------------------- */

int ptlib_ctor(void);
int ptlib_work(void);

static void ctor(void)
{
	int rc = ptlib_ctor(), work;

	printf("ctor: constructor result %d\n", rc);
	if (rc != 0)
		FAIL("ctor: the library's constructor failed at line %d", rc);
	work = ptlib_work();
	printf("ctor: work %d\n", work);
	if (work != 0)
		FAIL("ctor: ptlib_work failed at line %d", work);
}

static void open_lib(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*ctor_rc)(void), (*work)(void);
	int rc, w;

	if (!h)
		FAIL("dlopen %s: %s", path, dlerror());
	*(void **)&ctor_rc = dlsym(h, "ptlib_ctor");
	*(void **)&work = dlsym(h, "ptlib_work");
	if (!ctor_rc || !work)
		FAIL("dlsym: %s", dlerror());
	rc = ctor_rc();
	w = work();
	printf("dlopen: constructor result %d\n", rc);
	printf("dlopen: work %d\n", w);
	if (rc != 0 || w != 0)
		FAIL("dlopen: failed at lines %d, %d", rc, w);
	CHECK(dlclose(h));
}

/* ---- signal ------------------------------------------------------------- */

static pthread_mutex_t s_done_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_done_c = PTHREAD_COND_INITIALIZER;
static int s_done;

/* Mutexes made and used on a thread the program did not create. */
static void make_and_use(void)
{
	pthread_mutex_t *ms = malloc(16 * sizeof(*ms));

	if (!ms)
		FAIL("out of memory");
	for (int i = 0; i < 16; i++) {
		init_typed(&ms[i], kinds[i % NTYPES]);
		relock_check(&ms[i], kinds[i % NTYPES]);
	}
	for (int i = 0; i < 16; i++)
		CHECK(pthread_mutex_destroy(&ms[i]));
	free(ms);
	CHECK(pthread_mutex_lock(&s_done_m));
	s_done++;
	CHECK(pthread_cond_signal(&s_done_c));
	CHECK(pthread_mutex_unlock(&s_done_m));
}

static void timer_fired(union sigval v)
{
	(void)v;
	make_and_use();
}

static void *sig_thread(void *arg)
{
	sigset_t *set = arg;
	int sig;

	CHECK(sigwait(set, &sig));
	make_and_use();
	return NULL;
}

/* ThreadSanitizer crashes in glibc's SIGEV_THREAD helper thread, which
 * it did not see created: that half is left out under it. */
#if defined(__SANITIZE_THREAD__)
#define TIMER_THREAD 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TIMER_THREAD 0
#endif
#endif
#ifndef TIMER_THREAD
#define TIMER_THREAD 1
#endif

static void signals(void)
{
	struct sigevent ev;
	struct itimerspec its;
	timer_t tid = 0;
	sigset_t set;
	pthread_t t;

	if (!TIMER_THREAD)
		goto no_timer;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD;
	ev.sigev_notify_function = timer_fired;
	if (timer_create(CLOCK_MONOTONIC, &ev, &tid) != 0)
		FAIL("timer_create: %s", strerror(errno));
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 10 * 1000 * 1000;
	if (timer_settime(tid, 0, &its, NULL) != 0)
		FAIL("timer_settime: %s", strerror(errno));
no_timer:
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &set, NULL));
	CHECK(pthread_create(&t, NULL, sig_thread, &set));
	CHECK(pthread_kill(t, SIGUSR1));
	CHECK(pthread_join(t, NULL));
	CHECK(pthread_mutex_lock(&s_done_m));
	while (s_done < 1 + TIMER_THREAD)
		CHECK(pthread_cond_wait(&s_done_c, &s_done_m));
	CHECK(pthread_mutex_unlock(&s_done_m));
	if (TIMER_THREAD)
		timer_delete(tid);
	printf("signal: %d threads made and used mutexes\n", s_done);
}

/* ---- many --------------------------------------------------------------- */

static void many(long n)
{
	struct obj *o = malloc((size_t)n * sizeof(*o));
	long sum = 0;

	if (!o)
		FAIL("out of memory");
	for (long i = 0; i < n; i++) {
		CHECK(pthread_mutex_init(&o[i].m, NULL));
		o[i].count = i;
	}
	for (int r = 0; r < 2; r++)
		for (long i = 0; i < n; i++) {
			CHECK(pthread_mutex_lock(&o[i].m));
			sum += o[i].count;
			CHECK(pthread_mutex_unlock(&o[i].m));
		}
	printf("many %ld: sum %ld\n", n, sum);
	if (sum != n * (n - 1))
		FAIL("many: wrong sum");
	for (long i = 0; i < n; i++)
		CHECK(pthread_mutex_destroy(&o[i].m));
	free(o);
}

/* ---- inflate ------------------------------------------------------------
 * Under rcl-run a normal mutex runs on glibc's word until a thread finds
 * it held, then moves to the algorithm's lock with threads in the middle
 * of taking it (pti_mutex.c, "thin mutexes").  Each round uses a fresh
 * mutex, in memory that held the previous round's, and starts more
 * threads than CPUs at once on it: lock, trylock, timed lock and a
 * condition wait all meet the move.  Counts must be exact. */

enum { INF_THREADS = 6, INF_ITERS = 300 };

struct inflate {
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_barrier_t go;
	long count, turns;
	int waiting;
};

static void *inf_worker(void *arg)
{
	struct inflate *f = arg;
	struct timespec ts;

	pthread_barrier_wait(&f->go);
	for (int i = 0; i < INF_ITERS; i++) {
		switch (i % 4) {
		case 0:
			CHECK(pthread_mutex_lock(&f->m));
			break;
		case 1:
			while (pthread_mutex_trylock(&f->m) == EBUSY)
				sched_yield();
			break;
		case 2:
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 60;
			CHECK(pthread_mutex_timedlock(&f->m, &ts));
			break;
		default:
			/* wait for another thread's turn (bounded: a
			 * timed wait, in case every other thread is done) */
			CHECK(pthread_mutex_lock(&f->m));
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 2 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			f->waiting++;
			for (long t = f->turns; f->turns == t;)
				if (pthread_cond_timedwait(&f->c, &f->m, &ts) ==
				    ETIMEDOUT)
					break;
			f->waiting--;
			break;
		}
		f->count++;
		f->turns++;
		if (f->waiting)
			CHECK(pthread_cond_signal(&f->c));
		CHECK(pthread_mutex_unlock(&f->m));
	}
	return NULL;
}

static void inflate(int rounds)
{
	struct inflate *f = NULL;
	pthread_t t[INF_THREADS];
	long total = 0;

	for (int r = 0; r < rounds; r++) {
		/* the previous round's memory, not cleared: the mutex is
		 * new only through pthread_mutex_init */
		if (!f && !(f = malloc(sizeof(*f))))
			FAIL("out of memory");
		CHECK(pthread_mutex_init(&f->m, NULL));
		CHECK(pthread_cond_init(&f->c, NULL));
		CHECK(pthread_barrier_init(&f->go, NULL, INF_THREADS));
		f->count = f->turns = 0;
		f->waiting = 0;
		for (int i = 0; i < INF_THREADS; i++)
			CHECK(pthread_create(&t[i], NULL, inf_worker, f));
		for (int i = 0; i < INF_THREADS; i++)
			CHECK(pthread_join(t[i], NULL));
		if (f->count != INF_THREADS * INF_ITERS)
			FAIL("inflate: round %d: count %ld, want %d", r,
			     f->count, INF_THREADS * INF_ITERS);
		total += f->count;
		CHECK(pthread_barrier_destroy(&f->go));
		CHECK(pthread_cond_destroy(&f->c));
		CHECK(pthread_mutex_destroy(&f->m));
	}
	free(f);
	printf("inflate: %d rounds, count %ld\n", rounds, total);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "copy") == 0)
		copy();
	else if (strcmp(mode, "reuse") == 0)
		reuse();
	else if (strcmp(mode, "cancel") == 0)
		cancel();
	else if (strcmp(mode, "handover") == 0)
		handover();
	else if (strcmp(mode, "ctor") == 0)
		ctor();
	else if (strcmp(mode, "dlopen") == 0 && argc == 3)
		open_lib(argv[2]);
	else if (strcmp(mode, "signal") == 0)
		signals();
	else if (strcmp(mode, "many") == 0 && argc == 3)
		many(atol(argv[2]));
	else if (strcmp(mode, "inflate") == 0 && argc == 3)
		inflate(atoi(argv[2]));
	else
		FAIL("usage: pt_abuse copy|reuse|cancel|handover|ctor|"
		     "dlopen LIB|signal|many N|inflate ROUNDS");
	return 0;
}
