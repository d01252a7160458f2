/* SPDX-License-Identifier: MIT */
/*
 * pthread_mutex_* wrappers: each mutex is a record in the map holding a
 * liblock lock; the application's pthread_mutex_t is never written.
 *
 * Types.  Recursive and error-checking mutexes are honoured for every
 * algorithm by the wrapper itself: the record keeps the owner (a per-thread
 * token) and the depth, written only by the holder (pti_lock.c).  Normal
 * and default mutexes note the holder too (see fork) but check nothing. Robust,
 * priority-inheritance, priority-protect and process-shared mutexes cannot be
 * kept by a per-process map of user-space locks: they stay POSIX, and we say so
 * once per reason.
 *
 * Statically initialised mutexes are discovered at first use; their type
 * is read (never written) from the initialiser's __kind field.  A mutex
 * whose memory says process-shared but that we never saw initialised (it
 * was set up by another process) is left to glibc without a record.
 *
 * fork.  Queue locks remember their waiters: in a fork child, a lock that
 * had waiters (threads that no longer exist) might never be free again.
 * So every record notes its holder (normal mutexes too, one store), and in
 * the child the locks the forking thread holds are re-created and taken
 * again, at once; locks nobody held are re-created lazily at first use
 * (their gen is stale); locks other threads held stay held, as in POSIX.
 *
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "pti_int.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* glibc's __kind bits (nptl/pthreadP.h), read from static initialisers. */
#define GLIBC_KIND_TYPE_MASK 3
#define GLIBC_KIND_ROBUST 16
#define GLIBC_KIND_PI 32
#define GLIBC_KIND_PP 64
#define GLIBC_KIND_PSHARED 128

static _Atomic bool said_pshared, said_robust, said_prio;
_Atomic unsigned int pti_fork_gen;

/* ---- records ------------------------------------------------------------ */

/* A new lock of the run's algorithm into @o->lock. */
static int new_lock(struct pti_obj *o)
{
	const struct pti_config *cfg = pti_config();
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	const struct ll_ops *ops;
	int rc;

	attr.algorithm = cfg->algorithm;
	attr.flags = LIBLOCK_ATTR_FIXED;
	o->gated = cfg->gated;
	pti_thread.inside++;
	rc = liblock_init(&o->lock, &attr);
	pti_thread.inside--;
	if (rc != 0)
		return rc;
	/* A FIXED lock is built by liblock_init(): its ops table is set.
	 * The fast path calls the algorithm's entries directly, as
	 * liblock_lock()/unlock() would after their ready check. */
	ops = ll_lock_ops(&o->lock);
	o->lock_fn = ops->lock;
	o->unlock_fn = ops->unlock;
	o->impl = ll_lock_impl(&o->lock);
	o->fast =
		o->kind == PTI_NORMAL && !o->gated && ops->lock && ops->unlock;
	return 0;
}

static int make_mutex(struct pti_obj *o, void *arg)
{
	int rc;

	o->kind = *(int *)arg;
	if (o->kind == PTI_POSIX)
		return 0;
	if ((rc = new_lock(o)) == 0)
		pti_count_object(false);
	return rc;
}

/* A record replaced by a re-init (memory reused without destroy). */
static void drop_mutex(struct pti_obj *o)
{
	int rc;

	if (o->kind == PTI_POSIX)
		return;
	pti_thread.inside++;
	rc = liblock_destroy(&o->lock);
	pti_thread.inside--;
	if (rc != 0)
		ll_log(LL_WARN,
		       "rcl-run: mutex %p re-initialised while held; "
		       "its old lock is leaked",
		       (void *)atomic_load(&o->key));
}

/* destroy: refuse (record kept) while held; else free the lock. */
static int check_destroy(struct pti_obj *o)
{
	int rc;

	if (o->kind == PTI_POSIX)
		return pti_real()->mutex_destroy(
			(pthread_mutex_t *)atomic_load(&o->key));
	if (atomic_load_explicit(&o->owner, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&o->users, memory_order_relaxed) != 0)
		return EBUSY;
	pti_thread.inside++;
	rc = liblock_destroy(&o->lock);
	pti_thread.inside--;
	return rc;
}

static int kind_of_memory(const pthread_mutex_t *m)
{
	int k = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);

	if (k & (GLIBC_KIND_PSHARED | GLIBC_KIND_ROBUST | GLIBC_KIND_PI |
		 GLIBC_KIND_PP))
		return PTI_POSIX;
	switch (k & GLIBC_KIND_TYPE_MASK) {
	case PTHREAD_MUTEX_RECURSIVE_NP:
		return PTI_RECURSIVE;
	case PTHREAD_MUTEX_ERRORCHECK_NP:
		return PTI_ERRORCHECK;
	default:
		return PTI_NORMAL;
	}
}

/* First use of a mutex we never saw initialised. */
static __attribute__((noinline)) struct pti_obj *discover(pthread_mutex_t *m)
{
	struct pti_obj *o;
	int kind, err;

	if (!pti_config()->replace)
		return NULL;
	kind = kind_of_memory(m);
	if (kind == PTI_POSIX)
		return NULL;
	o = pti_map_add(PTI_MUTEXES, (uintptr_t)m, make_mutex, &kind, false,
			NULL, &err);
	if (!o) {
		/* Nobody to return the error to: keep this mutex POSIX. */
		ll_log(LL_WARN, "rcl-run: mutex %p stays POSIX (error %d)",
		       (void *)m, err);
		kind = PTI_POSIX;
		o = pti_map_add(PTI_MUTEXES, (uintptr_t)m, make_mutex, &kind,
				false, NULL, &err);
		if (!o)
			ll_fatal("rcl-run: out of memory for mutex %p",
				 (void *)m);
	}
	return o->kind == PTI_POSIX ? NULL : o;
}

/* First use in a fork child of a lock nobody held at fork: a new one
 * (the old one may hold gone waiters; it is leaked, child-side only). */
static __attribute__((noinline)) void refresh(struct pti_obj *o)
{
	unsigned int gen;

	pti_map_writer_lock();
	gen = atomic_load_explicit(&pti_fork_gen, memory_order_relaxed);
	if (atomic_load_explicit(&o->gen, memory_order_relaxed) != gen) {
		if (new_lock(o) != 0)
			ll_fatal(
				"rcl-run: cannot re-create mutex %p after fork",
				(void *)atomic_load(&o->key));
		atomic_store_explicit(&o->users, 0, memory_order_relaxed);
		/* release: pairs with the acquire in pti_mutex_get() */
		atomic_store_explicit(&o->gen, gen, memory_order_release);
	}
	pti_map_writer_unlock();
}

/* Our records say we hold @o but its algorithm refused our unlock (EPERM):
 * its owner identity is a thread id, and this is a fork child whose other
 * fork handlers ran before ours.  We are the holder: give @o a new, free
 * lock (the old one is leaked, child-side only). */
static void reset_held(struct pti_obj *o)
{
	pti_map_writer_lock();
	if (new_lock(o) != 0)
		ll_fatal("rcl-run: cannot re-create mutex %p after fork",
			 (void *)atomic_load(&o->key));
	atomic_store_explicit(&o->users, 0, memory_order_relaxed);
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	o->depth = 0;
	pti_map_writer_unlock();
}

/* The record of @m from the map, created on first use, its lock current
 * (fork); NULL if @m gets none. */
static struct pti_obj *record_of(pthread_mutex_t *m)
{
	struct pti_obj *o = pti_map_find(PTI_MUTEXES, (uintptr_t)m);

	if (ll_unlikely(o == NULL))
		return discover(m);
	if (o->kind == PTI_POSIX)
		return o;
	/* acquire: pairs with the release in refresh(): the new lock */
	if (ll_unlikely(
		    atomic_load_explicit(&o->gen, memory_order_acquire) !=
		    atomic_load_explicit(&pti_fork_gen, memory_order_relaxed)))
		refresh(o);
	return o;
}

struct pti_obj *pti_mutex_lookup_slow(pthread_mutex_t *m)
{
	/* acquire: pairs with the release in pti_map_epoch_bump(): the map
	 * read below is at least as new as the epoch the entry is filed
	 * under.  Read before the map, so a removal after the read makes
	 * the entry stale at once. */
	uint64_t epoch = atomic_load_explicit(&pti_map_epoch.value,
					      memory_order_acquire);
	unsigned int i = pti_tcache_slot((uintptr_t)m);
	struct pti_obj *o;

	if (pti_thread.cache.epoch != epoch) {
		memset(pti_thread.cache.e, 0, sizeof(pti_thread.cache.e));
		pti_thread.cache.epoch = epoch;
	}
	if ((o = record_of(m)) != NULL) {
		pti_thread.cache.e[i].key = (uintptr_t)m;
		pti_thread.cache.e[i].obj = o;
	}
	return o;
}

void pti_mutex_after_fork(struct pti_obj *o)
{
	uintptr_t owner = atomic_load_explicit(&o->owner, memory_order_relaxed);
	unsigned int gen =
		atomic_load_explicit(&pti_fork_gen, memory_order_relaxed);

	if (o->kind == PTI_POSIX || owner == 0)
		return; /* glibc's, or re-created at first use */
	if (owner == PTI_SELF) {
		/* Ours: a new lock, taken by us, same depth. */
		if (new_lock(o) != 0)
			ll_fatal(
				"rcl-run: cannot re-create mutex %p after fork",
				(void *)atomic_load(&o->key));
		atomic_store_explicit(&o->users, 0, memory_order_relaxed);
		if (pti_base_lock(o) != 0)
			ll_fatal("rcl-run: cannot re-take mutex %p after fork",
				 (void *)atomic_load(&o->key));
	}
	atomic_store_explicit(&o->gen, gen, memory_order_relaxed);
}

/* ---- the wrappers ------------------------------------------------------- */

/* Each wrapper first sends liblock's own calls (pti_thread.inside) to
 * glibc, before anything else: they are not counted in the report. */

static int kind_of_attr(const pthread_mutexattr_t *attr)
{
	int type = PTHREAD_MUTEX_DEFAULT, pshared = PTHREAD_PROCESS_PRIVATE;
	int robust = PTHREAD_MUTEX_STALLED, proto = PTHREAD_PRIO_NONE;

	if (!attr)
		return PTI_NORMAL;
	pthread_mutexattr_gettype(attr, &type);
	pthread_mutexattr_getpshared(attr, &pshared);
	pthread_mutexattr_getrobust(attr, &robust);
	pthread_mutexattr_getprotocol(attr, &proto);
	if (pshared != PTHREAD_PROCESS_PRIVATE) {
		pti_say_once(&said_pshared, "left to glibc",
			     "process-shared mutexes");
		return PTI_POSIX;
	}
	if (robust != PTHREAD_MUTEX_STALLED) {
		pti_say_once(&said_robust, "left to glibc", "robust mutexes");
		return PTI_POSIX;
	}
	if (proto != PTHREAD_PRIO_NONE) {
		pti_say_once(&said_prio, "left to glibc",
			     "priority-inheritance/protect mutexes");
		return PTI_POSIX;
	}
	if (type == PTHREAD_MUTEX_RECURSIVE)
		return PTI_RECURSIVE;
	return type == PTHREAD_MUTEX_ERRORCHECK ? PTI_ERRORCHECK : PTI_NORMAL;
}

LL_API_EXPORT int pti_mutex_init(pthread_mutex_t *m,
				 const pthread_mutexattr_t *attr)
{
	int kind, rc, err;

	if (pti_thread.inside)
		return pti_real()->mutex_init(m, attr);
	pti_count(PTI_W_MUTEX_INIT);
	if (!pti_config()->replace)
		return pti_real()->mutex_init(m, attr);
	kind = kind_of_attr(attr);
	if (kind == PTI_POSIX && (rc = pti_real()->mutex_init(m, attr)) != 0)
		return rc;
	if (!pti_map_add(PTI_MUTEXES, (uintptr_t)m, make_mutex, &kind, true,
			 drop_mutex, &err))
		return err;
	return 0;
}
PTI_EXPORT(pti_mutex_init, pthread_mutex_init, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_destroy(pthread_mutex_t *m)
{
	int rc;

	if (pti_thread.inside)
		return pti_real()->mutex_destroy(m);
	pti_count(PTI_W_MUTEX_DESTROY);
	rc = pti_map_remove(PTI_MUTEXES, (uintptr_t)m, check_destroy, NULL);
	if (rc != ENOENT)
		return rc;
	/* Never used by this process: glibc's if it may be glibc's. */
	if (!pti_config()->replace || kind_of_memory(m) == PTI_POSIX)
		return pti_real()->mutex_destroy(m);
	return 0;
}
PTI_EXPORT(pti_mutex_destroy, pthread_mutex_destroy, "GLIBC_2.2.5");

/* lock and unlock of a record that is not fast (pti_obj.fast). */
static __attribute__((noinline)) int lock_slow(pthread_mutex_t *m,
					       struct pti_obj *o)
{
	if (!o || o->kind == PTI_POSIX)
		return pti_real()->mutex_lock(m);
	return pti_enter(o, PTI_HOW_LOCK, -1, NULL);
}

/* The common case is inline: a normal mutex, an algorithm with trylock;
 * pti_enter() and pti_base_lock() do the same, for every case. */
LL_API_EXPORT int pti_mutex_lock(pthread_mutex_t *m)
{
	struct pti_obj *o;
	int rc;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_lock(m);
	pti_count(PTI_W_MUTEX_LOCK);
	o = pti_mutex_lookup(m);
	if (ll_unlikely(!o || !o->fast))
		return lock_slow(m, o);
	pti_thread.inside++;
	rc = o->lock_fn(o->impl);
	pti_thread.inside--;
	if (ll_likely(rc == 0)) {
		/* relaxed: see pti_enter() */
		atomic_store_explicit(&o->owner, PTI_SELF,
				      memory_order_relaxed);
		o->depth = 1;
	}
	return rc;
}
PTI_EXPORT(pti_mutex_lock, pthread_mutex_lock, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_trylock(pthread_mutex_t *m)
{
	struct pti_obj *o;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_trylock(m);
	pti_count(PTI_W_MUTEX_TRYLOCK);
	if ((o = pti_mutex_get(m)) == NULL)
		return pti_real()->mutex_trylock(m);
	return pti_enter(o, PTI_HOW_TRY, -1, NULL);
}
PTI_EXPORT(pti_mutex_trylock, pthread_mutex_trylock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_trylock, pti_mutex_trylock_225, pthread_mutex_trylock,
	       "GLIBC_2.2.5");

/* The algorithm refused to unlock @o (its holder was @prev). */
static __attribute__((noinline)) int unlock_refused(struct pti_obj *o, int rc,
						    uintptr_t prev)
{
	if (rc == EPERM && prev == PTI_SELF) {
		reset_held(o);
		return 0;
	}
	atomic_store_explicit(&o->owner, prev, memory_order_relaxed);
	return rc;
}

static __attribute__((noinline)) int unlock_slow(pthread_mutex_t *m,
						 struct pti_obj *o)
{
	uintptr_t prev;
	int rc;

	if (!o || o->kind == PTI_POSIX)
		return pti_real()->mutex_unlock(m);
	if (o->kind != PTI_NORMAL) {
		if (atomic_load_explicit(&o->owner, memory_order_relaxed) !=
		    PTI_SELF)
			return EPERM;
		if (--o->depth > 0)
			return 0;
	}
	prev = atomic_load_explicit(&o->owner, memory_order_relaxed);
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	if ((rc = pti_base_unlock(o)) != 0)
		return unlock_refused(o, rc, prev);
	return 0;
}

/* Normal mutexes: glibc lets any thread unlock; so do we, unless the
 * algorithm refuses (EPERM): then the holder is kept. */
LL_API_EXPORT int pti_mutex_unlock(pthread_mutex_t *m)
{
	struct pti_obj *o;
	uintptr_t prev;
	int rc;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_unlock(m);
	pti_count(PTI_W_MUTEX_UNLOCK);
	o = pti_mutex_lookup(m);
	if (ll_unlikely(!o || !o->fast))
		return unlock_slow(m, o);
	prev = atomic_load_explicit(&o->owner, memory_order_relaxed);
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	pti_thread.inside++;
	rc = o->unlock_fn(o->impl);
	pti_thread.inside--;
	if (ll_unlikely(rc != 0))
		return unlock_refused(o, rc, prev);
	return 0;
}
PTI_EXPORT(pti_mutex_unlock, pthread_mutex_unlock, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_timedlock(pthread_mutex_t *m,
				      const struct timespec *abstime)
{
	struct pti_obj *o;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_timedlock(m, abstime);
	pti_count(PTI_W_MUTEX_TIMEDLOCK);
	if ((o = pti_mutex_get(m)) == NULL)
		return pti_real()->mutex_timedlock(m, abstime);
	if (!abstime)
		return EINVAL;
	return pti_enter(o, PTI_HOW_LOCK, CLOCK_REALTIME, abstime);
}
PTI_EXPORT(pti_mutex_timedlock, pthread_mutex_timedlock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_timedlock, pti_mutex_timedlock_225,
	       pthread_mutex_timedlock, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
				      const struct timespec *abstime)
{
	struct pti_obj *o;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_clocklock(m, clock, abstime);
	pti_count(PTI_W_MUTEX_CLOCKLOCK);
	if ((o = pti_mutex_get(m)) == NULL)
		return pti_real()->mutex_clocklock(m, clock, abstime);
	if (!abstime || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
		return EINVAL;
	return pti_enter(o, PTI_HOW_LOCK, clock, abstime);
}
PTI_EXPORT(pti_mutex_clocklock, pthread_mutex_clocklock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_clocklock, pti_mutex_clocklock_230,
	       pthread_mutex_clocklock, "GLIBC_2.30");
