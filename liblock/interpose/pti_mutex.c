/* SPDX-License-Identifier: MIT */
/*
 * pthread_mutex_* wrappers: each mutex used is a record holding a liblock
 * lock, named by a tag in the mutex (pti_int.h, "mutex identity").
 * pthread_mutex_init() and pthread_mutex_destroy() are glibc's on the
 * application's memory, so it always holds glibc's bytes (plus the tag
 * once used): copies made before first use behave as under glibc.
 *
 * Types.  Recursive and error-checking mutexes are honoured for every
 * algorithm by the wrapper itself: the record keeps the owner (a per-thread
 * token) and the depth, written only by the holder (pti_lock.c).  Normal
 * and default mutexes note the holder too (see fork) but check nothing. Robust,
 * priority-inheritance, priority-protect and process-shared mutexes cannot be
 * kept by a per-process map of user-space locks: they stay POSIX, and we say so
 * once per reason.
 *
 * Every mutex is discovered at first use, its type read from the __kind
 * field that glibc's init (or a static initialiser) wrote; a normal one
 * gets its record only when a thread finds it held ("thin mutexes"
 * below).  A mutex whose
 * memory says process-shared, robust or priority-aware is left to glibc
 * without a record.  Memory reused for a new mutex (zeroed, re-initialised
 * or a copy) carries no valid tag: it gets a new record, and the old
 * record at that address, if any, is dropped (its lock is leaked if it
 * was held: a mutex freed while locked).
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
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	o->ops = ll_lock_ops(&o->lock);
	atomic_store_explicit(&o->fast, pti_fast_ok(o), memory_order_relaxed);
	return 0;
}

static int make_mutex(struct pti_obj *o, void *arg)
{
	int rc;

	o->kind = *(int *)arg;
	/* a normal mutex's record is built at its first contention: the
	 * word may be held (see "thin mutexes") */
	atomic_store_explicit(&o->thin, o->kind == PTI_NORMAL,
			      memory_order_relaxed);
	if (o->kind == PTI_POSIX)
		return 0;
	if ((rc = new_lock(o)) == 0)
		pti_count_object(false);
	return rc;
}

/* Locks that can never be destroyed (held by a thread that will not
 * unlock them: memory freed while locked, a handed-over mutex), kept
 * reachable so leak checkers do not report what we leak on purpose.
 * Under the writer lock. */
static void **kept;
static size_t nkept, kept_cap;

static void keep(struct pti_obj *o)
{
	if (nkept == kept_cap) {
		size_t cap = kept_cap ? 2 * kept_cap : 64;
		void **p = ll_realloc(kept, cap * sizeof(*p));

		if (!p)
			return; /* merely reported as a leak */
		kept = p;
		kept_cap = cap;
	}
	kept[nkept++] = ll_lock_impl(&o->lock);
}

/* A record whose memory was reused (re-initialised, zeroed or
 * overwritten without destroy).  glibc allows it silently, so do we. */
static void drop_mutex(struct pti_obj *o)
{
	int rc;

	if (o->kind == PTI_POSIX)
		return;
	if (atomic_load_explicit(&o->handed, memory_order_relaxed)) {
		keep(o);
		return;
	}
	pti_thread.inside++;
	rc = liblock_destroy(&o->lock);
	pti_thread.inside--;
	if (rc != 0) {
		keep(o);
		ll_log(LL_INFO,
		       "rcl-run: mutex %p reused while held; "
		       "its old lock is kept, held",
		       (void *)atomic_load(&o->key));
	}
}

/* destroy: refuse (record kept) while held; else free the lock. */
static int check_destroy(struct pti_obj *o)
{
	int rc;

	if (atomic_load_explicit(&o->owner, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&o->users, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&o->hword, memory_order_relaxed) != 0)
		return EBUSY;
	if (atomic_load_explicit(&o->handed, memory_order_relaxed)) {
		keep(o); /* its old lock is held for good */
		return 0;
	}
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

/* Name record @o in @m's memory.  Writer lock held. */
static void tag_set(pthread_mutex_t *m, struct pti_obj *o)
{
	/* release: pairs with the acquire in pti_mutex_lookup(): whoever
	 * reads the tag sees the record built */
	atomic_store_explicit(pti_tag_word(m), pti_tag_of(o),
			      memory_order_release);
}

/* @m's record as its tag names it, or NULL. */
static struct pti_obj *tagged(pthread_mutex_t *m)
{
	/* acquire: see pti_mutex_lookup() */
	return pti_tag_record(
		atomic_load_explicit(pti_tag_word(m), memory_order_acquire),
		(uintptr_t)m);
}

/* First use of @m since its memory became a mutex: a new record, of the
 * type its memory says, replacing any record left at that address. */
static __attribute__((noinline)) struct pti_obj *discover(pthread_mutex_t *m,
							  int kind)
{
	static _Atomic bool said_nomem;
	struct pti_obj *o;
	int err;

	pti_map_writer_lock();
	/* Another thread's first use may have won. */
	if ((o = tagged(m)) == NULL) {
		o = pti_map_add(PTI_MUTEXES, (uintptr_t)m, make_mutex, &kind,
				true, drop_mutex, &err);
		if (o)
			tag_set(m, o);
	}
	pti_map_writer_unlock();
	if (!o) {
		/* Nobody to return the error to; glibc's bytes are there. */
		pti_say_once(&said_nomem, "left to glibc",
			     "mutexes that found no memory for a lock");
		return NULL;
	}
	return o;
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
		/* release: pairs with the acquire in
		 * pti_mutex_lookup_slow() */
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

struct pti_obj *pti_mutex_lookup_slow(pthread_mutex_t *m)
{
	struct pti_obj *o = tagged(m);

	/* acquire: pairs with the release in refresh(): the new lock */
	if (o &&
	    atomic_load_explicit(&o->gen, memory_order_acquire) !=
		    atomic_load_explicit(&pti_fork_gen, memory_order_relaxed))
		refresh(o);
	return o;
}

/* ---- thin mutexes -------------------------------------------------------
 * A normal mutex runs on glibc's own lock word in the application's
 * memory (glibc's trylock and unlock) until a thread finds that word held:
 * then it gets its record and the algorithm's lock, for good.  Most
 * mutexes of a program are never contended; they cost no memory and run
 * at glibc's speed, while the contended ones, the algorithm's business,
 * still get it.  Recursive and error-checking mutexes get their record at
 * first use (the record keeps their owner and depth).
 *
 * Inflation.  The record is built with `thin` set: the thread that took
 * the word before the record existed may still hold it.  Every
 * acquisition through the record runs pti_enter(), whose first holder
 * takes and drops glibc's word (pti_lock.c, drain()), then clears `thin`
 * and allows the fast path.  A thread that read no tag and then took the
 * word (first_use()) checks the tag again: if it is there, it lets the
 * word go and takes the record's lock.  If the drain's glibc lock came
 * before that thread's trylock, the drain's unlock is what the trylock
 * acquires, and the tag, written before the drain, is seen; if it came
 * after, the drain waits for that thread, a legitimate holder.  So no
 * thread holds the word as a section once `thin` is clear.
 *
 * Unlock.  No record, or a record still `thin`: the caller holds the
 * word (only a thin holder can be in a section then), glibc unlocks it,
 * from any thread, as glibc would.  Otherwise the record's lock. */

/* The report counts thin mutexes once each: the first thin hold marks
 * the tag word with this value, which names no record (its index is out
 * of range).  Only when counting: a normal run writes nothing there. */
#define TAG_SEEN UINT64_MAX
static_assert(((uint32_t)TAG_SEEN - 1) >> PTI_CHUNK_BITS >= 1u << PTI_DIR_BITS,
	      "TAG_SEEN names no record");

/* A normal mutex unlocked by a thread other than the one that locked it
 * while it had no record (glibc allows it; legacy code hands locks over
 * that way) is marked with this value and stays glibc's for good: after
 * inflation such an unlock would have to hand the record over
 * (pti_hand_over()), which strands the threads queued in its lock. */
#define TAG_GLIBC (UINT64_MAX - 1)
static_assert(((uint32_t)TAG_GLIBC - 1) >> PTI_CHUNK_BITS >= 1u << PTI_DIR_BITS,
	      "TAG_GLIBC names no record");

/* Mark @m's tag word with @mark unless it names a record or is marked;
 * returns true if this call marked it. */
static bool tag_mark(pthread_mutex_t *m, uint64_t mark)
{
	uint64_t t =
		atomic_load_explicit(pti_tag_word(m), memory_order_relaxed);

	/* relaxed: a mark, nothing is published through it.  A CAS from a
	 * value that names no record, never a store: a tag discover()
	 * writes meanwhile must stay */
	return t != TAG_SEEN && t != TAG_GLIBC &&
	       !pti_tag_record(t, (uintptr_t)m) &&
	       atomic_compare_exchange_strong_explicit(
		       pti_tag_word(m), &t, mark, memory_order_relaxed,
		       memory_order_relaxed);
}

static int self_tid(void)
{
	if (ll_unlikely(pti_thread.tid == 0))
		pti_thread.tid = (int)syscall(SYS_gettid);
	return pti_thread.tid;
}

/* Unlock of @m held on glibc's word (no record, or one still thin). */
static int thin_unlock(pthread_mutex_t *m, struct pti_obj *o)
{
	int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);

	if (!o && owner != 0 && owner != self_tid() &&
	    kind_of_memory(m) == PTI_NORMAL)
		(void)tag_mark(m, TAG_GLIBC);
	return pti_real()->mutex_unlock(m);
}

/* What first_use() found. */
enum first {
	FIRST_GLIBC, /* glibc runs this mutex (POSIX-only, or no memory) */
	FIRST_THIN,  /* the word is ours: a thin hold */
	FIRST_BUSY,  /* (trylock) the word is held */
	FIRST_OWN,   /* use the record *@op */
};

/* @m has no record.  Take glibc's word if it is a normal mutex and the
 * word is free; else build the record (unless @try finds it held). */
static enum first first_use(pthread_mutex_t *m, bool try, struct pti_obj **op)
{
	const struct pti_real *r = pti_real();
	int kind;

	*op = NULL;
	if (!pti_config()->replace || (kind = kind_of_memory(m)) == PTI_POSIX ||
	    atomic_load_explicit(pti_tag_word(m), memory_order_relaxed) ==
		    TAG_GLIBC)
		return FIRST_GLIBC;
	if (kind == PTI_NORMAL) {
		if (r->mutex_trylock(m) == 0) {
			if (!tagged(m)) {
				if (ll_unlikely(pti_counting) &&
				    tag_mark(m, TAG_SEEN))
					pti_count_thin();
				return FIRST_THIN;
			}
			/* inflated meanwhile: its lock rules */
			r->mutex_unlock(m);
		} else if (try) {
			return FIRST_BUSY;
		}
	}
	*op = discover(m, kind);
	return *op ? FIRST_OWN : FIRST_GLIBC;
}

enum pti_hold pti_mutex_hold(pthread_mutex_t *m, struct pti_obj **op)
{
	struct pti_obj *o = pti_mutex_lookup(m);
	int kind;

	*op = NULL;
	if (!o) {
		if (!pti_config()->replace ||
		    (kind = kind_of_memory(m)) == PTI_POSIX)
			return PTI_HOLD_GLIBC;
		if (kind == PTI_NORMAL)
			return PTI_HOLD_THIN;
		/* a checked mutex never locked: its record says it is not
		 * ours (EPERM) */
		if ((o = discover(m, kind)) == NULL)
			return PTI_HOLD_GLIBC;
	}
	if (o->kind == PTI_POSIX)
		return PTI_HOLD_GLIBC;
	/* relaxed: see pti_obj.thin */
	if (o->kind == PTI_NORMAL &&
	    atomic_load_explicit(&o->thin, memory_order_relaxed))
		return PTI_HOLD_THIN;
	*op = o;
	return PTI_HOLD_RECORD;
}

void pti_mutex_after_fork(struct pti_obj *o)
{
	uintptr_t owner = atomic_load_explicit(&o->owner, memory_order_relaxed);
	unsigned int gen =
		atomic_load_explicit(&pti_fork_gen, memory_order_relaxed);

	if (o->kind == PTI_POSIX || owner == 0)
		return; /* glibc's, or re-created at first use */
	if (atomic_load_explicit(&o->handed, memory_order_relaxed)) {
		/* a futex word: still held by whoever held it; its waiters
		 * are gone */
		if (atomic_load_explicit(&o->hword, memory_order_relaxed))
			atomic_store_explicit(&o->hword, 1,
					      memory_order_relaxed);
	} else if (owner == PTI_SELF) {
		/* Ours: a new lock, taken by us, same depth.  By trylock where
		 * the algorithm has one (a new lock in a child of one thread
		 * is free): a lock call on an rcl lock may ship, and the rest
		 * of the fork, the other handlers and the program's code up to
		 * its unlock, would run on the child's new server. */
		int rc;

		if (new_lock(o) != 0)
			ll_fatal(
				"rcl-run: cannot re-create mutex %p after fork",
				(void *)atomic_load(&o->key));
		atomic_store_explicit(&o->users, 0, memory_order_relaxed);
		if (o->gated) {
			rc = pti_base_lock(o);
		} else {
			pti_thread.inside++;
			rc = liblock_trylock(&o->lock);
			pti_thread.inside--;
		}
		if (rc != 0)
			ll_fatal("rcl-run: cannot re-take mutex %p after fork "
				 "(error %d)",
				 (void *)atomic_load(&o->key), rc);
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
	if (pti_thread.inside)
		return pti_real()->mutex_init(m, attr);
	pti_count(PTI_W_MUTEX_INIT);
	if (pti_config()->replace)
		(void)kind_of_attr(attr); /* says which types stay glibc's */
	/* glibc writes its bytes, which clear the tag: the first use finds
	 * no record, reads the type from them, and replaces whatever record
	 * the address kept from an earlier mutex (a re-init without
	 * destroy), as destroy does for a mutex never used. */
	return pti_real()->mutex_init(m, attr);
}
PTI_EXPORT(pti_mutex_init, pthread_mutex_init, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_destroy(pthread_mutex_t *m)
{
	int rc;

	if (pti_thread.inside)
		return pti_real()->mutex_destroy(m);
	pti_count(PTI_W_MUTEX_DESTROY);
	if (!pti_config()->replace)
		return pti_real()->mutex_destroy(m);
	pti_map_writer_lock();
	if (tagged(m)) {
		/* ours and in use: refused while held (EBUSY) */
		rc = pti_map_remove(PTI_MUTEXES, (uintptr_t)m, check_destroy,
				    NULL);
	} else {
		/* never used as this mutex: a record left at this address
		 * belongs to memory since reused */
		rc = pti_map_remove(PTI_MUTEXES, (uintptr_t)m, NULL,
				    drop_mutex);
		rc = rc == ENOENT ? 0 : rc;
	}
	if (rc == 0) {
		/* glibc's bytes again, then glibc's destroy on them */
		atomic_store_explicit(pti_tag_word(m), 0, memory_order_relaxed);
		rc = pti_real()->mutex_destroy(m);
	}
	pti_map_writer_unlock();
	return rc;
}
PTI_EXPORT(pti_mutex_destroy, pthread_mutex_destroy, "GLIBC_2.2.5");

/* lock of a mutex without a record, or whose record is not fast
 * (pti_obj.fast). */
static __attribute__((noinline)) int lock_slow(pthread_mutex_t *m,
					       struct pti_obj *o)
{
	if (!o) {
		switch (first_use(m, false, &o)) {
		case FIRST_THIN:
			return 0;
		case FIRST_OWN:
			break;
		default:
			return pti_real()->mutex_lock(m);
		}
	}
	if (o->kind == PTI_POSIX)
		return pti_real()->mutex_lock(m);
	return pti_enter(o, PTI_HOW_LOCK, -1, NULL);
}

int pti_mutex_take(pthread_mutex_t *m)
{
	return lock_slow(m, pti_mutex_lookup(m));
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
	/* relaxed: see pti_obj.fast */
	if (ll_unlikely(!o ||
			!atomic_load_explicit(&o->fast, memory_order_relaxed)))
		return lock_slow(m, o);
	pti_thread.inside++;
	rc = ll_note_taken(o->ops->lock(ll_lock_impl(&o->lock)));
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
	if ((o = pti_mutex_lookup(m)) == NULL) {
		switch (first_use(m, true, &o)) {
		case FIRST_THIN:
			return 0;
		case FIRST_BUSY:
			return EBUSY;
		case FIRST_OWN:
			break;
		default:
			return pti_real()->mutex_trylock(m);
		}
	}
	if (o->kind == PTI_POSIX)
		return pti_real()->mutex_trylock(m);
	return pti_enter(o, PTI_HOW_TRY, -1, NULL);
}
PTI_EXPORT(pti_mutex_trylock, pthread_mutex_trylock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_trylock, pti_mutex_trylock_225, pthread_mutex_trylock,
	       "GLIBC_2.2.5");

/* The algorithm refused to unlock @o (its holder was @prev); the unlock
 * was called from @site. */
static __attribute__((noinline)) int
unlock_refused(struct pti_obj *o, int rc, uintptr_t prev, const void *site)
{
	if (rc == EPERM && prev == PTI_SELF) {
		reset_held(o);
		return 0;
	}
	if (rc == EPERM && o->kind == PTI_NORMAL && prev != 0) {
		/* held by another thread: glibc lets us unlock it */
		pti_hand_over(o, site);
		return 0;
	}
	atomic_store_explicit(&o->owner, prev, memory_order_relaxed);
	return rc;
}

static __attribute__((noinline)) int
unlock_slow(pthread_mutex_t *m, struct pti_obj *o, const void *site)
{
	uintptr_t prev;
	int rc;

	/* no record: glibc's (a POSIX-only mutex, a thin hold, or a checked
	 * mutex never locked, which glibc refuses as we would); relaxed:
	 * see pti_obj.thin */
	if (!o && pti_config()->replace)
		return thin_unlock(m, NULL);
	if (!o || o->kind == PTI_POSIX)
		return pti_real()->mutex_unlock(m);
	if (o->kind == PTI_NORMAL &&
	    atomic_load_explicit(&o->thin, memory_order_relaxed))
		return thin_unlock(m, o);
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
		return unlock_refused(o, rc, prev, site);
	return 0;
}

/* Normal mutexes: glibc lets any thread unlock, so do we: if the
 * algorithm refuses (EPERM) because another thread holds the lock, the
 * mutex is handed over (pti_hand_over()). */
LL_API_EXPORT int pti_mutex_unlock(pthread_mutex_t *m)
{
	struct pti_obj *o;
	uintptr_t prev;
	int rc;

	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_unlock(m);
	pti_count(PTI_W_MUTEX_UNLOCK);
	o = pti_mutex_lookup(m);
	/* relaxed: see pti_obj.fast */
	if (ll_unlikely(!o ||
			!atomic_load_explicit(&o->fast, memory_order_relaxed)))
		return unlock_slow(m, o, __builtin_return_address(0));
	prev = atomic_load_explicit(&o->owner, memory_order_relaxed);
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	pti_thread.inside++;
	rc = ll_note_released(o->ops->unlock(ll_lock_impl(&o->lock)));
	pti_thread.inside--;
	if (ll_unlikely(rc != 0))
		return unlock_refused(o, rc, prev, __builtin_return_address(0));
	return 0;
}
PTI_EXPORT(pti_mutex_unlock, pthread_mutex_unlock, "GLIBC_2.2.5");

/* Lock @m, waiting until @abstime on @clock (checked by the caller). */
static int timed_lock(pthread_mutex_t *m, clockid_t clock,
		      const struct timespec *abstime)
{
	struct pti_obj *o = pti_mutex_lookup(m);

	if (!o) {
		switch (first_use(m, false, &o)) {
		case FIRST_THIN:
			return 0;
		case FIRST_OWN:
			break;
		default:
			return pti_real()->mutex_clocklock(m, clock, abstime);
		}
	}
	if (o->kind == PTI_POSIX)
		return pti_real()->mutex_clocklock(m, clock, abstime);
	return pti_enter(o, PTI_HOW_LOCK, clock, abstime);
}

LL_API_EXPORT int pti_mutex_timedlock(pthread_mutex_t *m,
				      const struct timespec *abstime)
{
	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_timedlock(m, abstime);
	pti_count(PTI_W_MUTEX_TIMEDLOCK);
	if (!pti_config()->replace)
		return pti_real()->mutex_timedlock(m, abstime);
	if (!abstime)
		return EINVAL;
	return timed_lock(m, CLOCK_REALTIME, abstime);
}
PTI_EXPORT(pti_mutex_timedlock, pthread_mutex_timedlock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_timedlock, pti_mutex_timedlock_225,
	       pthread_mutex_timedlock, "GLIBC_2.2.5");

LL_API_EXPORT int pti_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
				      const struct timespec *abstime)
{
	if (ll_unlikely(pti_thread.inside))
		return pti_real()->mutex_clocklock(m, clock, abstime);
	pti_count(PTI_W_MUTEX_CLOCKLOCK);
	if (!pti_config()->replace)
		return pti_real()->mutex_clocklock(m, clock, abstime);
	if (!abstime || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
		return EINVAL;
	return timed_lock(m, clock, abstime);
}
PTI_EXPORT(pti_mutex_clocklock, pthread_mutex_clocklock, "GLIBC_2.34");
PTI_EXPORT_OLD(pti_mutex_clocklock, pti_mutex_clocklock_230,
	       pthread_mutex_clocklock, "GLIBC_2.30");
