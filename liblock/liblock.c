/* SPDX-License-Identifier: MIT */
/*
 * The public API: dispatch through the ops table, lazy initialisation of
 * statically initialised locks, the LIBLOCK_LOCK override.
 *
 * Lazy initialisation, lock state word (_state):
 *   0 -> 1   one thread wins the CAS and builds the state;
 *   1 -> 2   it publishes _ops/_impl with a release store;
 *   others   wait for 2 (acquire) before using _ops/_impl.
 * The fast path of every call is one acquire load (a plain load on x86)
 * and one indirect call.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { LOCK_UNINIT = 0, LOCK_INITIALISING = 1, LOCK_READY = 2 };

/* The per-thread token (ll_wait.h): only its address is used. */
__thread uint64_t ll_self_word LL_TLS_FAST;

/* See ll_wait.h. */
_Atomic unsigned int ll_fork_gen;

static void ll_forked(void)
{
	/* relaxed: the child has one thread */
	atomic_fetch_add_explicit(&ll_fork_gen, 1, memory_order_relaxed);
}

/* Registered once, when the library is loaded: a child handler only.  If
 * it cannot be registered (ENOMEM at load time), fork() keeps its former
 * behaviour: a child unlocking a queue lock behind which a parent's
 * thread was queued may wait for that thread. */
__attribute__((constructor)) static void ll_fork_setup(void)
{
	(void)pthread_atfork(NULL, NULL, ll_forked);
}

/* The algorithm a lock gets: $LIBLOCK_LOCK wins unless the lock is FIXED;
 * then the requested one; then posix. */
static const char *choose_algorithm(const char *requested, unsigned int flags)
{
	const char *env = getenv("LIBLOCK_LOCK");

	if (env && *env && !(flags & LIBLOCK_ATTR_FIXED))
		return env;
	return requested ? requested : "posix";
}

static int build(liblock_lock_t *lock, const liblock_attr_t *attr)
{
	const char *name = choose_algorithm(attr->algorithm, attr->flags);
	const struct ll_ops *ops = ll_ops_find(name);
	void *impl = NULL;
	int rc;

	if (!ops) {
		ll_log(LL_ERROR,
		       "unknown lock algorithm '%s' (see rcl-bench --list)",
		       name);
		return EINVAL;
	}
	if (attr->server != LIBLOCK_SERVER_DEFAULT &&
	    !ll_cpu_online(attr->server)) {
		ll_log(LL_ERROR, "server CPU %d is not an online CPU",
		       attr->server);
		return EINVAL;
	}
	if ((rc = ops->init(&impl, attr)) != 0)
		return rc;
	lock->_ops = ops;
	lock->_impl = impl;
	return 0;
}

int liblock_init(liblock_lock_t *lock, const liblock_attr_t *attr)
{
	static const liblock_attr_t defaults = LIBLOCK_ATTR_INITIALIZER;
	int rc;

	if (!lock)
		return EINVAL;
	if (!attr)
		attr = &defaults;
	lock->_algorithm = attr->algorithm;
	lock->_server = attr->server;
	lock->_flags = attr->flags;
	atomic_store_explicit(&lock->_state, LOCK_UNINIT, memory_order_relaxed);
	if ((rc = build(lock, attr)) != 0)
		return rc;
	/* release: pairs with the acquire in ready(); _ops/_impl first */
	atomic_store_explicit(&lock->_state, LOCK_READY, memory_order_release);
	return 0;
}

/* Slow path of ready(): initialise a statically initialised lock once. */
static __attribute__((noinline)) int lazy_init(liblock_lock_t *lock)
{
	int expected = LOCK_UNINIT;

	/* 0 -> 1: we build the lock.  acquire: orders our reads of the
	 * attributes after the claim; a loser pairs with the winner's
	 * release of READY in the loop below, not here */
	if (atomic_compare_exchange_strong_explicit(
		    &lock->_state, &expected, LOCK_INITIALISING,
		    memory_order_acquire, memory_order_acquire)) {
		liblock_attr_t attr = {lock->_algorithm, lock->_server,
				       lock->_flags};

		if (build(lock, &attr) != 0) {
			/* A static lock has nobody to return an error to:
			 * fall back to POSIX so the program stays correct. */
			ll_log(LL_WARN, "lock %p falls back to posix",
			       (void *)lock);
			attr.algorithm = "posix";
			attr.flags |= LIBLOCK_ATTR_FIXED;
			attr.server = LIBLOCK_SERVER_DEFAULT;
			if (build(lock, &attr) != 0)
				ll_fatal("cannot initialise lock %p",
					 (void *)lock);
		}
		/* release: pairs with the acquire loads of waiters below */
		atomic_store_explicit(&lock->_state, LOCK_READY,
				      memory_order_release);
		return 0;
	}
	/* acquire: pairs with the release above, makes _ops/_impl visible */
	while (atomic_load_explicit(&lock->_state, memory_order_acquire) !=
	       LOCK_READY)
		sched_yield();
	return 0;
}

static inline const struct ll_ops *ready(liblock_lock_t *lock)
{
	/* acquire: pairs with the release that published _ops/_impl */
	if (ll_unlikely(
		    atomic_load_explicit(&lock->_state, memory_order_acquire) !=
		    LOCK_READY))
		lazy_init(lock);
	return lock->_ops;
}

int liblock_destroy(liblock_lock_t *lock)
{
	int rc, state;

	if (!lock)
		return EINVAL;
	/* acquire: pairs with the release of READY, _ops/_impl visible */
	state = atomic_load_explicit(&lock->_state, memory_order_acquire);
	if (state == LOCK_UNINIT && lock->_ops == NULL)
		return 0; /* static, never used */
	if (state != LOCK_READY || lock->_ops == NULL)
		return EINVAL;
	rc = ((const struct ll_ops *)lock->_ops)->destroy(lock->_impl);
	if (rc != 0)
		return rc;
	lock->_ops = NULL;
	lock->_impl = NULL;
	atomic_store_explicit(&lock->_state, LOCK_UNINIT, memory_order_relaxed);
	return 0;
}

void *liblock_exec(liblock_lock_t *lock, liblock_fn_t fn, void *ctx)
{
	const struct ll_ops *ops = ready(lock);
	void *ret;
	int rc;

	if (ll_likely(ops->exec != NULL))
		return ops->exec(lock->_impl, fn, ctx);
	/* A queue lock's lock() can fail (ENOMEM for its node); running fn
	 * unprotected would be a silent wrong answer, and exec has no error
	 * return. */
	if (ll_unlikely((rc = ops->lock(lock->_impl)) != 0))
		ll_fatal("liblock_exec: %s lock %p failed: error %d", ops->name,
			 (void *)lock, rc);
	ret = fn(ctx);
	ops->unlock(lock->_impl);
	return ret;
}

int liblock_lock(liblock_lock_t *lock)
{
	const struct ll_ops *ops = ready(lock);

	return ops->lock ? ops->lock(lock->_impl) : ENOTSUP;
}

int liblock_trylock(liblock_lock_t *lock)
{
	const struct ll_ops *ops = ready(lock);

	return ops->trylock ? ops->trylock(lock->_impl) : ENOTSUP;
}

int liblock_unlock(liblock_lock_t *lock)
{
	const struct ll_ops *ops = ready(lock);

	return ops->unlock ? ops->unlock(lock->_impl) : ENOTSUP;
}

const char *liblock_lock_algorithm(liblock_lock_t *lock)
{
	return ready(lock)->name;
}

/* ---- condition variables ---------------------------------------------- */

static bool cond_valid(const liblock_cond_t *cond)
{
	return cond && cond->_magic == LIBLOCK_COND_MAGIC;
}

int liblock_cond_init(liblock_cond_t *cond, const pthread_condattr_t *attr)
{
	clockid_t clock = CLOCK_REALTIME;

	if (!cond)
		return EINVAL;
	if (attr && pthread_condattr_getclock(attr, &clock) != 0)
		return EINVAL;
	atomic_init(&cond->_seq, 0);
	atomic_init(&cond->_waiters, 0);
	cond->_clock = (int)clock;
	cond->_magic = LIBLOCK_COND_MAGIC;
	return 0;
}

int liblock_cond_destroy(liblock_cond_t *cond)
{
	if (!cond_valid(cond))
		return EINVAL;
	/* acquire: pairs with the release in ll_cond_leave(), so the last
	 * waiter is done with the condition before it is torn down */
	if (atomic_load_explicit(&cond->_waiters, memory_order_acquire) != 0)
		return EBUSY;
	cond->_magic = 0;
	return 0;
}

unsigned int ll_cond_enter(liblock_cond_t *cond)
{
	/* seq_cst: the waiter count must be visible to a signaller before
	 * we read seq; see liblock_cond_signal(). */
	atomic_fetch_add_explicit(&cond->_waiters, 1, memory_order_seq_cst);
	return atomic_load_explicit(&cond->_seq, memory_order_seq_cst);
}

int ll_cond_sleep(liblock_cond_t *cond, unsigned int seq,
		  const struct timespec *abstime)
{
	return ll_futex_wait((_Atomic uint32_t *)&cond->_seq, seq, abstime,
			     cond->_clock);
}

void ll_cond_leave(liblock_cond_t *cond)
{
	/* release: pairs with the acquire in liblock_cond_destroy() */
	atomic_fetch_sub_explicit(&cond->_waiters, 1, memory_order_release);
}

static int cond_wait_generic(const struct ll_ops *ops, void *impl,
			     liblock_cond_t *cond,
			     const struct timespec *abstime)
{
	unsigned int seq;
	int rc, relock;

	if (!ops->lock || !ops->unlock)
		return ENOTSUP;
	seq = ll_cond_enter(cond);
	if ((rc = ops->unlock(impl)) != 0) {
		/* EPERM: not inside a section of this lock.  Sleeping and
		 * then locking would leave the caller holding a lock it
		 * never had. */
		ll_cond_leave(cond);
		return rc;
	}
	rc = ll_cond_sleep(cond, seq, abstime);
	/* The caller must get the lock back: no error return can say "you
	 * are now outside your critical section". */
	if (ll_unlikely((relock = ops->lock(impl)) != 0))
		ll_fatal("liblock_cond_wait: %s relock failed: error %d",
			 ops->name, relock);
	ll_cond_leave(cond);
	return rc;
}

static int cond_wait(liblock_cond_t *cond, liblock_lock_t *lock,
		     const struct timespec *abstime)
{
	const struct ll_ops *ops;

	if (!cond_valid(cond) || !lock)
		return EINVAL;
	if (abstime && (abstime->tv_nsec < 0 ||
			abstime->tv_nsec >= 1000000000L || abstime->tv_sec < 0))
		return EINVAL;
	ops = ready(lock);
	if (ops->cond_wait)
		return ops->cond_wait(lock->_impl, cond, abstime);
	return cond_wait_generic(ops, lock->_impl, cond, abstime);
}

int liblock_cond_wait(liblock_cond_t *cond, liblock_lock_t *lock)
{
	return cond_wait(cond, lock, NULL);
}

int liblock_cond_timedwait(liblock_cond_t *cond, liblock_lock_t *lock,
			   const struct timespec *abstime)
{
	if (!abstime)
		return EINVAL;
	return cond_wait(cond, lock, abstime);
}

static int cond_wake(liblock_cond_t *cond, int n)
{
	if (!cond_valid(cond))
		return EINVAL;
	/* seq_cst: a waiter that we do not count has not read seq yet, and
	 * will read the new value (ll_cond_enter), so it will not sleep. */
	atomic_fetch_add_explicit(&cond->_seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&cond->_waiters, memory_order_seq_cst) != 0)
		ll_futex_wake((_Atomic uint32_t *)&cond->_seq, n);
	return 0;
}

int liblock_cond_signal(liblock_cond_t *cond)
{
	return cond_wake(cond, 1);
}

int liblock_cond_broadcast(liblock_cond_t *cond)
{
	return cond_wake(cond, INT_MAX);
}

/* ---- algorithm listing ------------------------------------------------- */

static const char *algorithm_names[64];

static void fill_algorithm_names(void)
{
	size_t i, max = sizeof(algorithm_names) / sizeof(algorithm_names[0]);

	for (i = 0; ll_ops_at(i) && i + 1 < max; i++)
		algorithm_names[i] = ll_ops_at(i)->name;
	algorithm_names[i] = NULL;
	/* The stress suite runs what this list names: say so if it is cut. */
	if (ll_ops_at(i))
		ll_log(LL_ERROR,
		       "more than %zu algorithms registered: "
		       "liblock_algorithms() lists the first %zu",
		       max - 1, max - 1);
}

const char *const *liblock_algorithms(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, fill_algorithm_names);
	return algorithm_names;
}

int liblock_algorithm_info(const char *name, liblock_algorithm_info_t *info)
{
	const struct ll_ops *ops = name ? ll_ops_find(name) : NULL;

	if (!ops || !info)
		return EINVAL;
	info->name = ops->name;
	info->summary = ops->summary;
	info->caps = ops->caps;
	return 0;
}
