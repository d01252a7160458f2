/* SPDX-License-Identifier: MIT */
/*
 * Interposer set-up: the real glibc functions, the run's configuration
 * ($LIBLOCK_LOCK), fork handlers, and the $RCL_RUN_REPORT call counters.
 *
 * Another library's constructor may lock a mutex before ours runs, so the
 * real functions and the configuration are each built on first need by
 * whichever thread gets there first (state 0 -> 1 -> 2 by CAS; the others
 * wait for 2).  The constructor only forces both early.
 *
 * Symbol versions: the pthread_cond_* functions are looked up at
 * GLIBC_2.3.2, the condvar ABI every program built since 2003 binds; a
 * plain dlsym could return the 2.2.5 compatibility version.
 */
#include "pti_int.h"
#include "rcl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ST_NONE, ST_BUILDING, ST_READY };
static_assert(ST_READY == PTI_REAL_READY, "pti_real() inline check");

struct pti_real pti_real_fns;
_Atomic int pti_real_state;
static struct pti_config config;
static _Atomic int config_state;

__thread struct pti_thread pti_thread
	__attribute__((tls_model("initial-exec")));
bool pti_counting;
static _Atomic unsigned long counts[PTI_W_COUNT];
static _Atomic unsigned long objects[3]; /* mutex records, conds, thin */

static const char *const wrapper_names[PTI_W_COUNT] = {
	[PTI_W_MUTEX_INIT] = "pthread_mutex_init",
	[PTI_W_MUTEX_DESTROY] = "pthread_mutex_destroy",
	[PTI_W_MUTEX_LOCK] = "pthread_mutex_lock",
	[PTI_W_MUTEX_TRYLOCK] = "pthread_mutex_trylock",
	[PTI_W_MUTEX_UNLOCK] = "pthread_mutex_unlock",
	[PTI_W_MUTEX_TIMEDLOCK] = "pthread_mutex_timedlock",
	[PTI_W_MUTEX_CLOCKLOCK] = "pthread_mutex_clocklock",
	[PTI_W_COND_INIT] = "pthread_cond_init",
	[PTI_W_COND_DESTROY] = "pthread_cond_destroy",
	[PTI_W_COND_WAIT] = "pthread_cond_wait",
	[PTI_W_COND_TIMEDWAIT] = "pthread_cond_timedwait",
	[PTI_W_COND_CLOCKWAIT] = "pthread_cond_clockwait",
	[PTI_W_COND_SIGNAL] = "pthread_cond_signal",
	[PTI_W_COND_BROADCAST] = "pthread_cond_broadcast",
};

/* Wait until another thread finishes building (state 1 -> 2). */
static void wait_ready(_Atomic int *state)
{
	/* acquire: pairs with the release that set ST_READY */
	while (atomic_load_explicit(state, memory_order_acquire) != ST_READY)
		sched_yield();
}

static void *lookup(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;

	if (!p)
		p = dlsym(RTLD_NEXT, name);
	if (!p)
		ll_fatal("rcl-run: cannot find the real %s", name);
	return p;
}

static void resolve(void)
{
	struct pti_real *r = &pti_real_fns;

	r->mutex_init = lookup("pthread_mutex_init", NULL);
	r->mutex_destroy = lookup("pthread_mutex_destroy", NULL);
	r->mutex_lock = lookup("pthread_mutex_lock", NULL);
	r->mutex_trylock = lookup("pthread_mutex_trylock", NULL);
	r->mutex_unlock = lookup("pthread_mutex_unlock", NULL);
	r->mutex_timedlock = lookup("pthread_mutex_timedlock", NULL);
	r->mutex_clocklock = lookup("pthread_mutex_clocklock", NULL);
	r->cond_init = lookup("pthread_cond_init", "GLIBC_2.3.2");
	r->cond_destroy = lookup("pthread_cond_destroy", "GLIBC_2.3.2");
	r->cond_wait = lookup("pthread_cond_wait", "GLIBC_2.3.2");
	r->cond_timedwait = lookup("pthread_cond_timedwait", "GLIBC_2.3.2");
	r->cond_clockwait = lookup("pthread_cond_clockwait", NULL);
	r->cond_signal = lookup("pthread_cond_signal", "GLIBC_2.3.2");
	r->cond_broadcast = lookup("pthread_cond_broadcast", "GLIBC_2.3.2");
}

const struct pti_real *pti_real_slow(void)
{
	static __thread bool resolving;
	int expected = ST_NONE;

	if (atomic_compare_exchange_strong_explicit(
		    &pti_real_state, &expected, ST_BUILDING,
		    memory_order_acquire, memory_order_acquire)) {
		resolving = true;
		resolve();
		resolving = false;
		/* release: publishes pti_real_fns; pairs with wait_ready() and
		 * the acquire load in pti_real() */
		atomic_store_explicit(&pti_real_state, ST_READY,
				      memory_order_release);
		return &pti_real_fns;
	}
	if (resolving)
		ll_fatal("rcl-run: dlsym called a pthread mutex function");
	wait_ready(&pti_real_state);
	return &pti_real_fns;
}

/* Does @name's lock lack a working trylock?  Probed on a scratch lock. */
static bool lacks_trylock(const char *name)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	liblock_lock_t probe;
	int rc;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	if (liblock_init(&probe, &attr) != 0)
		return false; /* the real inits will report the error */
	rc = liblock_trylock(&probe);
	if (rc == 0)
		liblock_unlock(&probe);
	liblock_destroy(&probe);
	return rc == ENOTSUP;
}

/* A bad environment value: one line, and the program does not run. */
static _Noreturn void bad_env(const char *name, const char *value,
			      const char *why)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "rcl-run: %s=%s: %s\n", name, value,
			 why);

	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		_exit(2); /* nowhere to say it */
	_exit(2);
}

static void configure(void)
{
	const char *name = getenv("LIBLOCK_LOCK");
	liblock_algorithm_info_t info;

	if (!name)
		name = "posix";
	if (liblock_algorithm_info(name, &info) != 0)
		bad_env("LIBLOCK_LOCK", name,
			"unknown lock algorithm (see rcl-run --list)");
	/* rcl runs contended sections on its server by shipping the
	 * caller's context there (rcl_ship_set); the other delegation
	 * algorithms have no lock word */
	if (!(info.caps & LIBLOCK_CAP_LOCK))
		bad_env("LIBLOCK_LOCK", name,
			"a delegation algorithm needs extracted critical "
			"sections (rcl-refactor), not rcl-run");
	if (info.caps & LIBLOCK_CAP_SERVER) {
		const char *ship = getenv("RCL_RUN_SHIP");

		int mode = RCL_SHIP_BUSY;

		if (ship && strcmp(ship, "0") == 0)
			mode = RCL_SHIP_OFF;
		else if (ship && strcmp(ship, "always") == 0)
			mode = RCL_SHIP_ALWAYS;
		else if (ship && strcmp(ship, "1") != 0)
			bad_env("RCL_RUN_SHIP", ship,
				"expected 0, 1 or always");
		config.ship = mode != RCL_SHIP_OFF;
		if (config.ship && rcl_ship_set(mode) != 0) {
			config.ship = false;
			ll_log(LL_WARN,
			       "rcl-run: this build cannot ship sections to "
			       "the server (not x86-64, or a sanitizer "
			       "build): every section runs in place on the "
			       "RCL lock word");
		}
	}
	/* probed on a scratch lock, except for rcl, which has a trylock:
	 * a scratch RCL lock would start its server (and reserve its CPU)
	 * before the program even runs */
	pti_thread.inside++;
	config.gated =
		!(info.caps & LIBLOCK_CAP_SERVER) && lacks_trylock(info.name);
	pti_thread.inside--;
	config.algorithm = info.name;
	config.server = (info.caps & LIBLOCK_CAP_SERVER) != 0;
	config.replace = true;
}

const struct pti_config *pti_config(void)
{
	int expected = ST_NONE;

	/* acquire: pairs with the release below */
	if (ll_likely(atomic_load_explicit(&config_state,
					   memory_order_acquire) == ST_READY))
		return &config;
	pti_real();
	if (atomic_compare_exchange_strong_explicit(
		    &config_state, &expected, ST_BUILDING, memory_order_acquire,
		    memory_order_acquire)) {
		configure();
		/* release: publishes `config`; pairs with the loads above */
		atomic_store_explicit(&config_state, ST_READY,
				      memory_order_release);
		return &config;
	}
	wait_ready(&config_state);
	return &config;
}

void pti_say_once(_Atomic bool *flag, const char *msg, const char *what)
{
	if (!atomic_exchange_explicit(flag, true, memory_order_relaxed))
		ll_log(LL_WARN, "rcl-run: %s: %s (said once)", what, msg);
}

void pti_count_slow(enum pti_wrapper w)
{
	atomic_fetch_add_explicit(&counts[w], 1, memory_order_relaxed);
}

void pti_count_object(bool cond)
{
	atomic_fetch_add_explicit(&objects[cond], 1, memory_order_relaxed);
}

void pti_count_thin(void)
{
	atomic_fetch_add_explicit(&objects[2], 1, memory_order_relaxed);
}

/* Append one line to $RCL_RUN_REPORT: pid, algorithm, objects created
 * (mutex records, condvar records, normal mutexes used without a record:
 * thin) and the calls each wrapper received. */
static void write_report(const char *path)
{
	char buf[1024];
	int n, fd;

	n = snprintf(buf, sizeof(buf),
		     "pid=%d algorithm=%s mutexes=%lu conds=%lu thin=%lu",
		     (int)getpid(),
		     config.replace ? config.algorithm : "posix-passthrough",
		     atomic_load(&objects[0]), atomic_load(&objects[1]),
		     atomic_load(&objects[2]));
	if (config.ship) {
		rcl_ship_counts_t sc;

		rcl_ship_counts(&sc);
		n += snprintf(
			buf + n, sizeof(buf) - (size_t)n,
			" shipped=%lu nested=%lu unavailable=%lu "
			"exits=%lu",
			(unsigned long)sc.shipped, (unsigned long)sc.nested,
			(unsigned long)sc.unavailable, (unsigned long)sc.exits);
	}
	for (int i = 0; i < PTI_W_COUNT && n < (int)sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s=%lu",
			      wrapper_names[i], atomic_load(&counts[i]));
	if (n >= (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ll_log(LL_ERROR, "RCL_RUN_REPORT=%s: %s", path,
		       strerror(errno));
		return;
	}
	if (write(fd, buf, (size_t)n) != n)
		ll_log(LL_ERROR, "RCL_RUN_REPORT=%s: short write", path);
	close(fd);
}

static void atfork_prepare(void)
{
	pti_create_atfork_prepare();
	pti_map_atfork_prepare();
}

static void atfork_release(void)
{
	pti_map_atfork_release();
	pti_create_atfork_parent();
}

/* The child: one thread, the map whole (we hold its writer lock). */
static void atfork_child(void)
{
	pti_thread.tid = 0; /* the child's thread has its own id */
	if (config.replace) {
		atomic_fetch_add_explicit(&pti_fork_gen, 1,
					  memory_order_relaxed);
		pti_map_for_each_locked(PTI_MUTEXES, pti_mutex_after_fork);
		pti_map_for_each_locked(PTI_CONDS, pti_cond_after_fork);
	}
	pti_map_atfork_release();
}

static __attribute__((constructor)) void pti_start(void)
{
	const char *report = getenv("RCL_RUN_REPORT");

	pti_real();
	pti_config();
	pti_exec_resolve();
	/* also checks $LIBLOCK_LOG, in one line if it is bad (log.c) */
	ll_log(LL_DEBUG, "rcl-run: algorithm %s",
	       config.replace ? config.algorithm : "none");
	if (report) {
		int fd;

		if (!*report)
			bad_env("RCL_RUN_REPORT", report, "empty file name");
		fd = open(report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
		if (fd < 0)
			bad_env("RCL_RUN_REPORT", report, strerror(errno));
		close(fd);
		pti_counting = true;
	}
	pti_atfork_first();
}

/* ---- fork handlers: ours before any library's ----------------------------
 * glibc runs child handlers in the order they were registered.  A library
 * initialised before us (a dependency of the program) used to register
 * first, so its child handler ran before our repair of the locks: it could
 * release a queue lock into the queue of the parent's threads, and a
 * thread it then started waited for that lock for ever.  pthread_atfork()
 * is __register_atfork() (glibc links pthread_atfork into each caller), so
 * that is what we wrap: before the first registration of anyone but
 * librcl.so and us, the runtime's and liblock's handlers are registered
 * (rcl_atfork_init(), through this wrapper, from librcl.so), then ours.
 * Our prepare handler then runs after the libraries', our child handler
 * before theirs. */

typedef int (*register_fn)(void (*)(void), void (*)(void), void (*)(void),
			   void *);
extern void *__dso_handle;

static register_fn real_register(void)
{
	static _Atomic(register_fn) fn;
	register_fn f = atomic_load_explicit(&fn, memory_order_relaxed);

	if (!f) {
		*(void **)&f =
			dlvsym(RTLD_NEXT, "__register_atfork", "GLIBC_2.3.2");
		if (!f)
			*(void **)&f = dlsym(RTLD_NEXT, "__register_atfork");
		if (!f)
			ll_fatal("rcl-run: cannot find __register_atfork");
		/* relaxed: every thread that looks it up stores the same */
		atomic_store_explicit(&fn, f, memory_order_relaxed);
	}
	return f;
}

/* Once, whoever comes first: our constructor or the first registration
 * of another library (through the wrapper below, which the registrations
 * made from here do not re-enter: they come from librcl.so or us). */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void atfork_register(void)
{
	int rc;

	rcl_atfork_init();
	if ((rc = real_register()(atfork_prepare, atfork_release, atfork_child,
				  &__dso_handle)) != 0)
		ll_fatal("rcl-run: pthread_atfork: error %d", rc);
}

void pti_atfork_first(void)
{
	pthread_once(&atfork_once, atfork_register);
}

/* Not under ThreadSanitizer: its runtime registers its own fork handlers
 * from its initialiser, before any constructor and before it has a thread
 * state, and that call would reach this wrapper, whose instrumented entry
 * needs one (every process died at start).  There our handlers are
 * registered by pti_start() alone, as if no library had registered
 * before us; the tests of that order skip under sanitizers, which are not
 * fork-safe in a multithreaded process anyway. */
#ifndef __SANITIZE_THREAD__
/* Is @dso (a caller's __dso_handle) librcl.so's or ours? */
static bool dso_is_ours(void *dso)
{
	Dl_info a, b;

	if (dso == &__dso_handle)
		return true;
	return dladdr(dso, &a) && dladdr((void *)rcl_atfork_init, &b) &&
	       a.dli_fbase == b.dli_fbase;
}

LL_API_EXPORT int pti_register_atfork(void (*prepare)(void),
				      void (*parent)(void), void (*child)(void),
				      void *dso)
{
	if (!dso_is_ours(dso))
		pti_atfork_first();
	return real_register()(prepare, parent, child, dso);
}
PTI_EXPORT(pti_register_atfork, __register_atfork, "GLIBC_2.3.2");
#endif

static __attribute__((destructor)) void pti_stop(void)
{
	const char *path = getenv("RCL_RUN_REPORT");

	if (path && *path)
		write_report(path);
}
