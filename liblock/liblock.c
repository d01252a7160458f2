/* SPDX-License-Identifier: MIT */
/*
 * The public API: dispatch through the ops table, lazy initialisation of
 * statically initialised locks, the LIBLOCK_LOCK override, and locks
 * inherited by the child of a fork().
 *
 * Lock state word (_state):
 *   0 -> 1   one thread wins the CAS and builds the state;
 *   1 -> R   it publishes _ops/_impl with a release store of R;
 *   others   wait for R (acquire) before using _ops/_impl.
 * R is the ready value of this process, lock_ready: LOCK_READY, plus 2
 * for each fork() between the process that started and this one (a
 * child handler adds it).  A lock whose _state is an older ready value
 * was inherited from a parent; see "fork()" below.  The fast path of
 * every call is one acquire load (a plain load on x86), its comparison
 * with lock_ready, and one indirect call.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { LOCK_UNINIT = 0, LOCK_INITIALISING = 1, LOCK_READY = 2 };

/* The per-thread token (ll_wait.h): only its address is used. */
__thread uint64_t ll_self_word LL_TLS_FAST;

/* ---- fork() -------------------------------------------------------------
 * The child of a fork() has one thread, the one that forked; every lock
 * is copied as it was, including the queue nodes, tickets and sleepers of
 * the parent's other threads.  A queue lock released in the child would
 * hand itself to one of those threads, which the child does not have (or
 * wait for it to link itself in), and the child's next lock would wait
 * for ever.  pthread_atfork()'s idiom does exactly that: the prepare
 * handler takes the lock, with other threads possibly queued behind, and
 * the child handler releases it.
 *
 * So a lock of a parent is settled at its first use in the child
 * (forked_settle()), for the algorithms that have a lock word (LOCK cap,
 * trylock): a trylock of the inherited state tells whether the lock was
 * free at the fork.
 *   free      the lock gets a new, free state of its algorithm, and the
 *             call goes on with it;
 *   held      by the thread that forked (or by a thread the child does
 *             not have: then, as with a POSIX mutex, nobody releases it).
 *             An unlock, necessarily the forking thread's, since nobody
 *             else in the child can have taken it, gives the lock a new,
 *             free state; a lock waits for that (a futex on _state); a
 *             trylock returns EBUSY.
 * The inherited state is kept, never used again (retired), so that a leak
 * checker sees it reachable.  The RCL runtime settles its own locks
 * (runtime/server.c); locks without a lock word (combining) keep their
 * state.  forked_mu serialises the settling; it is held across fork()
 * so that a child never inherits it held.  It is a flag, not a
 * pthread_mutex_t, because under rcl-run pthread_mutex_lock() is the
 * interposer's, whose own fork handlers hold its map when ours run. */
static _Atomic int lock_ready = LOCK_READY;
static atomic_flag forked_mu = ATOMIC_FLAG_INIT;

struct retired {
	struct retired *next;
	void *impl;
};
static struct retired *retired; /* under forked_mu */

/* Held for a trylock and an allocation, so yielding beats sleeping. */
static void forked_lock(void)
{
	/* acquire: pairs with the release in forked_unlock() */
	while (atomic_flag_test_and_set_explicit(&forked_mu,
						 memory_order_acquire))
		sched_yield();
}

static void forked_unlock(void)
{
	atomic_flag_clear_explicit(&forked_mu, memory_order_release);
}

static void forked_child(void)
{
	/* relaxed: the child has one thread; threads it creates later see
	 * the value through pthread_create() */
	atomic_store_explicit(
		&lock_ready,
		atomic_load_explicit(&lock_ready, memory_order_relaxed) + 2,
		memory_order_relaxed);
	forked_unlock();
}

/* Registered once, when the library is loaded, or earlier through
 * rcl_atfork_init() (runtime/server.c).  If it cannot be (ENOMEM at load
 * time), a child uses its parent's locks as they were. */
static pthread_once_t fork_setup_once = PTHREAD_ONCE_INIT;

static void ll_fork_register(void)
{
	(void)pthread_atfork(forked_lock, forked_unlock, forked_child);
}

void ll_fork_setup(void)
{
	pthread_once(&fork_setup_once, ll_fork_register);
}

__attribute__((constructor)) static void ll_fork_setup_at_load(void)
{
	ll_fork_setup();
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
	int rc, cancel_state;

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
	/* pthread_mutex_init() is no cancellation point, and neither is
	 * this: an algorithm's init may reach one (the first RCL lock starts
	 * its server, which reads sysfs), and a thread cancelled there would
	 * leave a static lock initialising for ever (lazy_init()) and the
	 * server half started.  Cancellation stays pending until after. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	rc = ops->init(&impl, attr);
	pthread_setcancelstate(cancel_state, NULL);
	if (rc != 0)
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
	lock->_depth = 0;
	atomic_store_explicit(&lock->_owner, 0, memory_order_relaxed);
	atomic_store_explicit(&lock->_state, LOCK_UNINIT, memory_order_relaxed);
	if ((rc = build(lock, attr)) != 0)
		return rc;
	/* release: pairs with the acquire in ready(); _ops/_impl first */
	atomic_store_explicit(
		&lock->_state,
		atomic_load_explicit(&lock_ready, memory_order_relaxed),
		memory_order_release);
	return 0;
}

/* Slow path of ready(): initialise a statically initialised lock once. */
static __attribute__((noinline)) void lazy_init(liblock_lock_t *lock)
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

		/* All zero: memory no initialiser set (a static structure,
		 * calloc()).  glibc's all-zero mutex is a default one and
		 * programs lock such memory (lrzip's control_lock when it
		 * decompresses); as LIBLOCK_INITIALIZER, server 0 there is
		 * no request for CPU 0. */
		if (attr.algorithm == NULL && attr.server == 0 &&
		    attr.flags == 0)
			attr.server = LIBLOCK_SERVER_DEFAULT;
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
		atomic_store_explicit(
			&lock->_state,
			atomic_load_explicit(&lock_ready, memory_order_relaxed),
			memory_order_release);
		return;
	}
	/* acquire: pairs with the release above, makes _ops/_impl visible */
	while (atomic_load_explicit(&lock->_state, memory_order_acquire) <
	       LOCK_READY)
		sched_yield();
}

/* Whether @lock is ready in this process: initialised, and not inherited
 * from a parent and still unsettled.  relaxed for lock_ready: it changes
 * only in a fork child's handler, before the child has other threads. */
static inline bool current(liblock_lock_t *lock)
{
	/* acquire: pairs with the release that published _ops/_impl */
	return atomic_load_explicit(&lock->_state, memory_order_acquire) ==
	       atomic_load_explicit(&lock_ready, memory_order_relaxed);
}

/* _ops, once @lock is initialised; it may still be a parent's lock. */
static inline const struct ll_ops *ready(liblock_lock_t *lock)
{
	if (ll_unlikely(!current(lock)) &&
	    atomic_load_explicit(&lock->_state, memory_order_acquire) <
		    LOCK_READY)
		lazy_init(lock);
	return lock->_ops;
}

/* What a call is about to do, for settle(). */
enum { SETTLE_LOCK, SETTLE_TRYLOCK, SETTLE_UNLOCK };
#define SETTLED_UNLOCKED (-1) /* SETTLE_UNLOCK: done, the lock is free */

static int forked_settle(liblock_lock_t *lock, int op);

/* Slow path of every call that is about to use @lock for @op (SETTLE_*)
 * when it is not current: initialise it, or settle a lock inherited from
 * a parent.  Returns 0 when the call goes on with _ops/_impl, else what
 * forked_settle() returns. */
static __attribute__((noinline)) int settle(liblock_lock_t *lock, int op)
{
	ready(lock);
	return current(lock) ? 0 : forked_settle(lock, op);
}

/* Under forked_mu: give @lock a new, free state of its algorithm, keep
 * the inherited one (retired), and publish.  Returns 0, or the error of
 * the algorithm's init (ENOMEM). */
static int renew(liblock_lock_t *lock, int ready_now)
{
	const struct ll_ops *ops = lock->_ops;
	liblock_attr_t attr = {ops->name, lock->_server, lock->_flags};
	struct retired *r = ll_malloc(sizeof(*r));
	void *impl = NULL;
	int rc;

	if (!r)
		return ENOMEM;
	if ((rc = ops->init(&impl, &attr)) != 0) {
		ll_free(r);
		return rc;
	}
	r->impl = lock->_impl;
	r->next = retired;
	retired = r;
	lock->_impl = impl;
	/* release: pairs with the acquire in current(): the new _impl */
	atomic_store_explicit(&lock->_state, ready_now, memory_order_release);
	ll_futex_wake((_Atomic uint32_t *)&lock->_state, INT_MAX);
	return 0;
}

/* A call on @lock found it ready but not current: a lock inherited from a
 * parent process (see "fork()" above).  Returns 0 when the caller goes on
 * with @lock as it is now, SETTLED_UNLOCKED when @op was SETTLE_UNLOCK
 * and is done, or the error the call returns. */
static int forked_settle(liblock_lock_t *lock, int op)
{
	const struct ll_ops *ops = lock->_ops;
	int ready_now = atomic_load_explicit(&lock_ready, memory_order_relaxed);

	for (;;) {
		int s, rc;

		forked_lock();
		s = atomic_load_explicit(&lock->_state, memory_order_acquire);
		if (s == ready_now) {
			forked_unlock();
			return 0; /* settled by another thread meanwhile */
		}
		if (!(ops->caps & LIBLOCK_CAP_LOCK) ||
		    (ops->caps & LIBLOCK_CAP_SERVER) || !ops->trylock) {
			/* release: as in renew(); nothing changes */
			atomic_store_explicit(&lock->_state, ready_now,
					      memory_order_release);
			forked_unlock();
			return 0;
		}
		rc = ops->trylock(lock->_impl);
		if (rc == 0) {
			/* Free at the fork: the inherited state is retired
			 * held, nobody uses it again.  An unlock of a free
			 * lock is refused, as the algorithms with an owner
			 * refuse it. */
			if ((rc = renew(lock, ready_now)) != 0)
				ops->unlock(lock->_impl);
			forked_unlock();
			if (rc != 0)
				return rc;
			return op == SETTLE_UNLOCK ? EPERM : 0;
		}
		if (rc == EBUSY && op == SETTLE_UNLOCK) {
			/* Held at the fork: released by the thread that
			 * forked, the only one that can hold it here. */
			rc = renew(lock, ready_now);
			forked_unlock();
			return rc != 0 ? rc : SETTLED_UNLOCKED;
		}
		forked_unlock();
		if (rc != EBUSY || op == SETTLE_TRYLOCK)
			return rc;
		/* Held at the fork: wait for its release (renew()). */
		ll_futex_wait((_Atomic uint32_t *)&lock->_state, (uint32_t)s,
			      NULL, CLOCK_MONOTONIC);
	}
}

/* ---- recursive and error-checking locks --------------------------------
 * A lock made with LIBLOCK_ATTR_RECURSIVE or LIBLOCK_ATTR_ERRORCHECK
 * ("owned") records the thread that holds its word in _owner, and the
 * levels taken beyond the first in _depth, above the algorithm: every
 * algorithm with a lock word gets the pthread types' semantics, and the
 * unowned fast path pays one test of _flags, on the line it reads anyway.
 *
 * _owner is relaxed everywhere.  Only the holder writes it: its token
 * just after taking the word, 0 just before letting it go, so the word's
 * own acquire and release order the writes of successive holders (the
 * next holder's store comes after ours in _owner's modification order).
 * A thread reads its own token only while it holds the lock: it clears
 * the field itself before letting go, and reads the latest value it
 * wrote; any other value (0, a stale holder) differs from its token.
 * _depth is the holder's alone.
 *
 * liblock_exec by the holder runs the function in place: it holds the
 * lock (a recursive lock's section taken again).  An error-checking lock
 * does what `lock; section; unlock` did with pthreads there: the lock
 * call fails with EDEADLK, the section runs, the unlock releases the
 * lock the thread held.  A condition wait by the holder lets go of every
 * level and takes them all back. */
#define OWNED_FLAGS (LIBLOCK_ATTR_RECURSIVE | LIBLOCK_ATTR_ERRORCHECK)

/* _depth sits in the padding after _state: six words, which the rcl-run
 * interposer's one-line record of a mutex (pti_int.h) has room for. */
static_assert(sizeof(liblock_lock_t) == 6 * sizeof(void *),
	      "liblock_lock_t is six words");

/* liblock.h gives C++ files plain fields where C has atomic ones: the
 * layouts agree only while each atomic type has its plain type's size and
 * alignment. */
#define SAME_AS_PLAIN(type)                                                    \
	static_assert(sizeof(_Atomic type) == sizeof(type) &&                  \
			      _Alignof(_Atomic type) == _Alignof(type),        \
		      "_Atomic " #type " is laid out as " #type)
SAME_AS_PLAIN(int);
SAME_AS_PLAIN(unsigned int);
SAME_AS_PLAIN(uintptr_t);

static inline bool owned(const liblock_lock_t *lock)
{
	return ll_unlikely(lock->_flags & OWNED_FLAGS);
}

static inline bool held_by_me(liblock_lock_t *lock)
{
	return atomic_load_explicit(&lock->_owner, memory_order_relaxed) ==
	       ll_self();
}

/* Taken again by its holder: 0 (recursive: one level more), EAGAIN when
 * the count would wrap (as glibc), else @again (error-checking). */
static int take_again(liblock_lock_t *lock, int again)
{
	if (!(lock->_flags & LIBLOCK_ATTR_RECURSIVE))
		return again;
	if (lock->_depth == UINT_MAX)
		return EAGAIN;
	lock->_depth++;
	return 0;
}

bool ll_lock_owned_by_me(liblock_lock_t *lock)
{
	return owned(lock) && held_by_me(lock);
}

/* Just after the word is taken. */
static inline void set_owner(liblock_lock_t *lock)
{
	lock->_depth = 0;
	atomic_store_explicit(&lock->_owner, ll_self(), memory_order_relaxed);
}

/* Just before the word is let go. */
static inline void clear_owner(liblock_lock_t *lock)
{
	atomic_store_explicit(&lock->_owner, 0, memory_order_relaxed);
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
	if (state < LOCK_READY || lock->_ops == NULL)
		return EINVAL;
	if (owned(lock) &&
	    atomic_load_explicit(&lock->_owner, memory_order_relaxed) != 0)
		return EBUSY;
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
	const struct ll_ops *ops;
	void *ret;
	int rc;

	if (owned(lock) && held_by_me(lock)) {
		ret = fn(ctx);
		if (!(lock->_flags & LIBLOCK_ATTR_RECURSIVE))
			liblock_unlock(lock);
		return ret;
	}
	if (ll_unlikely(!current(lock)) &&
	    (rc = settle(lock, SETTLE_LOCK)) != 0)
		ll_fatal("liblock_exec: %s lock %p failed: error %d",
			 ((const struct ll_ops *)lock->_ops)->name,
			 (void *)lock, rc);
	ops = lock->_ops;
	if (ll_likely(ops->exec != NULL))
		return ops->exec(lock->_impl, fn, ctx);
	/* A queue lock's lock() can fail (ENOMEM for its node); running fn
	 * unprotected would be a silent wrong answer, and exec has no error
	 * return. */
	if (ll_unlikely((rc = ops->lock(lock->_impl)) != 0))
		ll_fatal("liblock_exec: %s lock %p failed: error %d", ops->name,
			 (void *)lock, rc);
	if (!owned(lock)) {
		ret = fn(ctx);
	} else { /* the section runs here: its thread holds the lock */
		set_owner(lock);
		ret = fn(ctx);
		clear_owner(lock);
	}
	ops->unlock(lock->_impl);
	return ret;
}

static int word_lock(liblock_lock_t *lock)
{
	const struct ll_ops *ops;
	int rc;

	if (ll_unlikely(!current(lock)) &&
	    (rc = settle(lock, SETTLE_LOCK)) != 0)
		return rc;
	ops = lock->_ops;
	return ops->lock ? ll_note_taken(ops->lock(lock->_impl)) : ENOTSUP;
}

/* lock or trylock (@take) of an owned lock: by its holder, @again
 * (take_again()); by another thread, the word, then the holder. */
static inline int owned_take(liblock_lock_t *lock,
			     int (*take)(liblock_lock_t *), int again)
{
	int rc;

	if (held_by_me(lock))
		return take_again(lock, again);
	if ((rc = take(lock)) == 0)
		set_owner(lock);
	return rc;
}

int liblock_lock(liblock_lock_t *lock)
{
	return owned(lock) ? owned_take(lock, word_lock, EDEADLK)
			   : word_lock(lock);
}

static int word_trylock(liblock_lock_t *lock)
{
	const struct ll_ops *ops;
	int rc;

	if (ll_unlikely(!current(lock)) &&
	    (rc = settle(lock, SETTLE_TRYLOCK)) != 0)
		return rc;
	ops = lock->_ops;
	return ops->trylock ? ll_note_taken(ops->trylock(lock->_impl))
			    : ENOTSUP;
}

int liblock_trylock(liblock_lock_t *lock)
{
	return owned(lock) ? owned_take(lock, word_trylock, EBUSY)
			   : word_trylock(lock);
}

/* An unlock the algorithm refused (EPERM: the caller does not hold the
 * lock).  glibc's default mutex lets one thread release what another
 * took (xfsprogs hands its buffer locks from the prefetch thread to the
 * I/O thread); a liblock lock cannot be handed over, and its next taker
 * would wait for ever with nothing said.  Said once per process. */
static void refused_unlock(liblock_lock_t *lock)
{
	static atomic_bool said;

	/* relaxed: only makes the warning once; nothing is published */
	if (!atomic_exchange_explicit(&said, true, memory_order_relaxed))
		ll_log(LL_WARN,
		       "a thread unlocked lock %p (%s), which it does not "
		       "hold: refused (EPERM).  A pthread mutex may be "
		       "released by another thread than the one that took "
		       "it; a liblock lock may not, and whoever waits for it "
		       "next waits for ever: keep that lock a pthread mutex",
		       (void *)lock, liblock_lock_algorithm(lock));
}

static int word_unlock(liblock_lock_t *lock)
{
	const struct ll_ops *ops;
	int rc;

	if (ll_unlikely(!current(lock)) &&
	    (rc = settle(lock, SETTLE_UNLOCK)) != 0)
		return rc == SETTLED_UNLOCKED ? 0 : rc;
	ops = lock->_ops;
	if (!ops->unlock)
		return ENOTSUP;
	rc = ll_note_released(ops->unlock(lock->_impl));
	if (ll_unlikely(rc == EPERM))
		refused_unlock(lock);
	return rc;
}

int liblock_unlock(liblock_lock_t *lock)
{
	int rc;

	if (!owned(lock))
		return word_unlock(lock);
	if (!held_by_me(lock))
		return EPERM;
	if (lock->_depth > 0) {
		lock->_depth--;
		return 0;
	}
	clear_owner(lock);
	if ((rc = word_unlock(lock)) != 0)
		set_owner(lock); /* still ours: the algorithm kept it */
	return rc;
}

void liblock_cleanup_unlock(void *lock)
{
	liblock_unlock(lock);
}

unsigned int liblock_mutexattr_flags(const pthread_mutexattr_t *attr)
{
	int type;

	if (!attr || pthread_mutexattr_gettype(attr, &type) != 0)
		return 0;
	if (type == PTHREAD_MUTEX_RECURSIVE)
		return LIBLOCK_ATTR_RECURSIVE;
	if (type == PTHREAD_MUTEX_ERRORCHECK)
		return LIBLOCK_ATTR_ERRORCHECK;
	return 0;
}

static int try_lock(void *lock)
{
	return liblock_trylock(lock);
}

int liblock_clocklock(liblock_lock_t *lock, clockid_t clock,
		      const struct timespec *abstime)
{
	if (owned(lock) && held_by_me(lock))
		return take_again(lock, EDEADLK);
	return ll_try_until(try_lock, lock, clock, abstime);
}

int liblock_timedlock(liblock_lock_t *lock, const struct timespec *abstime)
{
	return liblock_clocklock(lock, CLOCK_REALTIME, abstime);
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
	int rc;

	if (!cond_valid(cond) || !lock)
		return EINVAL;
	if (abstime && (abstime->tv_nsec < 0 ||
			abstime->tv_nsec >= 1000000000L || abstime->tv_sec < 0))
		return EINVAL;
	if (ll_unlikely(!current(lock)) &&
	    (rc = settle(lock, SETTLE_UNLOCK)) != 0) {
		/* a parent's lock, held at the fork: released; the wait
		 * starts from the new state, taken again */
		if (rc != SETTLED_UNLOCKED)
			return rc;
		if ((rc = liblock_lock(lock)) != 0)
			return rc;
	}
	ops = lock->_ops;
	if (owned(lock) && held_by_me(lock)) {
		unsigned int depth;

		/* every level goes, and comes back with the word */
		depth = lock->_depth;
		clear_owner(lock);
		rc = ops->cond_wait ? ops->cond_wait(lock->_impl, cond, abstime)
				    : cond_wait_generic(ops, lock->_impl, cond,
							abstime);
		set_owner(lock);
		lock->_depth = depth;
		return rc;
	}
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
