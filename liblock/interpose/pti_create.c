/* SPDX-License-Identifier: MIT */
/*
 * pthread_create under rcl-run: applies the co-location plan of
 * rcl-run --colocate ($RCL_RUN_COLOCATE, pti_plan.h).  A thread the plan
 * names starts pinned to its CPU, before any of its own code runs; every
 * other thread, and every thread when there is no plan, is created by
 * glibc's pthread_create untouched.
 *
 * With rcl, the program's first pthread_create also starts the RCL server
 * (server_early()).  Left to the first contended mutex, the start would
 * run inside a lock call: threads created and libnuma asked from within
 * pthread_mutex_lock(), which may itself be called from the program's
 * malloc() -- an allocator's lock, re-entered.  Here the program is
 * already creating a thread, which allocates anyway.
 */
#include "pti_int.h"
#include "pti_plan.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
			 void *);

enum { PLAN_UNREAD, PLAN_READING, PLAN_NONE, PLAN_SET };

static create_fn real_create;
static _Atomic int plan_state;
static struct pti_plan plan;
/* relaxed: only the numbering of creations matters, not their order
 * with respect to anything else */
static _Atomic unsigned long created;

/* Read $RCL_RUN_COLOCATE once; PLAN_NONE or PLAN_SET. */
static int plan_read(void)
{
	int st = atomic_load_explicit(&plan_state, memory_order_acquire);
	char err[256];
	const char *env;

	if (ll_likely(st >= PLAN_NONE))
		return st;
	st = PLAN_UNREAD;
	if (!atomic_compare_exchange_strong_explicit(
		    &plan_state, &st, PLAN_READING, memory_order_acquire,
		    memory_order_acquire)) {
		/* acquire: pairs with the release below; another thread
		 * is parsing, which takes microseconds */
		while ((st = atomic_load_explicit(&plan_state,
						  memory_order_acquire)) ==
		       PLAN_READING)
			sched_yield();
		return st;
	}
	/* the default version: glibc's current one, or the unversioned
	 * interceptor of a sanitizer runtime loaded between us and glibc
	 * (dlvsym would skip it, and the sanitizer would not know the
	 * thread) */
	real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!real_create)
		ll_fatal("rcl-run: cannot find the real pthread_create");
	env = getenv("RCL_RUN_COLOCATE");
	st = PLAN_NONE;
	if (env && *env) {
		if (pti_plan_parse_env(env, &plan, err, sizeof(err)) != 0)
			ll_fatal("rcl-run: %s", err);
		st = PLAN_SET;
	}
	/* release: the plan and real_create before the state */
	atomic_store_explicit(&plan_state, st, memory_order_release);
	return st;
}

/* Once the program's first thread is asked for; true in a fork child,
 * whose inherited locks follow the runtime's fork rules. */
static _Atomic bool server_asked;
/* server_asked before a fork, given back to the parent after it. */
static bool server_asked_before_fork;
/* Keeps the server of the run's locks; never used, never destroyed. */
static liblock_lock_t server_anchor;

/* With a server algorithm, start its server now (an RCL lock of the
 * default server, as the mutexes' records get): the program's mutexes
 * that become records later find it running.  A server that cannot start
 * or must wait (a fork child beside its parent's) is left to the
 * runtime's usual rules, which the records then follow. */
static void server_early(void)
{
	const struct pti_config *cfg;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	/* relaxed: a second start is harmless (the anchor is one lock);
	 * the exchange only keeps it to one */
	if (atomic_exchange_explicit(&server_asked, true, memory_order_relaxed))
		return;
	cfg = pti_config();
	if (!cfg->replace || !cfg->server)
		return;
	attr.algorithm = cfg->algorithm;
	pti_thread.inside++; /* the runtime's own mutexes stay glibc's */
	(void)liblock_init(&server_anchor, &attr);
	pti_thread.inside--;
}

/* A fork's prepare handler: the child starts with server_asked set.  A
 * thread it creates before the fork handlers run there (ThreadSanitizer's
 * background thread, a library's child handler registered before ours)
 * must not start a server: the runtime's server mutex is still held by
 * the forking thread's prepare handler until the runtime's child handler
 * runs. */
void pti_create_atfork_prepare(void)
{
	/* relaxed: the forking thread's own flag, read back after the fork
	 * by the same thread (pti_create_atfork_parent) */
	server_asked_before_fork = atomic_exchange_explicit(
		&server_asked, true, memory_order_relaxed);
}

void pti_create_atfork_parent(void)
{
	atomic_store_explicit(&server_asked, server_asked_before_fork,
			      memory_order_relaxed);
}

struct pinned_start {
	void *(*fn)(void *);
	void *arg;
	int cpu;
};

static void *start_pinned(void *p)
{
	struct pinned_start s = *(struct pinned_start *)p;
	cpu_set_t set;

	ll_free(p);
	CPU_ZERO(&set);
	CPU_SET(s.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		static _Atomic bool said;

		pti_say_once(&said,
			     "a thread of the co-location plan "
			     "cannot run on its CPU; it runs unpinned",
			     "--colocate");
	}
	return s.fn(s.arg);
}

LL_API_EXPORT int pti_create(pthread_t *t, const pthread_attr_t *a,
			     void *(*fn)(void *), void *arg)
{
	struct pinned_start *s;
	unsigned long index;
	const char *name = NULL;
	Dl_info info;
	int cpu;

	/* the program's first thread starts the server; the runtime's own
	 * threads are created with pti_thread.inside set */
	if (ll_unlikely(!atomic_load_explicit(&server_asked,
					      memory_order_relaxed)) &&
	    !pti_thread.inside)
		server_early();
	/* liblock's own threads are not the program's: not numbered */
	if (ll_likely(plan_read() == PLAN_NONE) || pti_thread.inside)
		return real_create(t, a, fn, arg);
	index = atomic_fetch_add_explicit(&created, 1, memory_order_relaxed) +
		1;
	if (dladdr((void *)fn, &info) && info.dli_saddr == (void *)fn)
		name = info.dli_sname;
	cpu = pti_plan_cpu(&plan, index, name);
	if (cpu < 0 || !(s = ll_malloc(sizeof(*s))))
		return real_create(t, a, fn, arg);
	*s = (struct pinned_start){fn, arg, cpu};
	int rc = real_create(t, a, start_pinned, s);

	if (rc != 0)
		ll_free(s);
	return rc;
}

PTI_EXPORT(pti_create, pthread_create, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_create, pti_create_225, pthread_create, "GLIBC_2.2.5");
