/* SPDX-License-Identifier: MIT */
/*
 * pti: the pthread interposer behind rcl-run (librclrun.so, LD_PRELOAD).
 *
 * Each pthread_mutex_t the program contends (a recursive or error-checking
 * one: each it uses) gets a record holding a liblock lock of the
 * algorithm named by $LIBLOCK_LOCK; until then a normal mutex runs on
 * glibc's own word (a thin mutex, pti_mutex.c).  The record is found
 * through a tag in the mutex's own memory (see "mutex identity" below) and
 * kept in an address map for fork and for reclaiming records whose memory
 * was reused.  pthread_mutex_init() is glibc's: the mutex memory holds
 * what glibc puts there, plus the tag once it has a record.  A mutex with
 * a record is never locked by glibc again (after the drain).  Mutexes that must
 * stay POSIX (process-shared, robust, priority-inheritance, priority-protect)
 * say so in their __kind and get no record: glibc runs them on the
 * application's memory.
 *
 * Condition variables are records of their own, keyed by address, with a
 * futex sequence word: wait = note seq, release the lock, sleep while seq
 * is unchanged, take the lock back.  This works with any lock, including
 * the POSIX ones, and has no internal pthread mutex (unlike LiTL).
 *
 * References: Guiroux, Lachaize, Quema, "Multicore Locks: The Case Is Not
 * Closed Yet", USENIX ATC 2016 (LiTL), and the pitfalls it lists: no
 * thread cap here, no inline per-thread arrays, recursive and
 * error-checking types honoured, timedlock supported.
 *
 * Needs only C11 acquire/release; no TSO reliance.
 */
#ifndef PTI_INT_H
#define PTI_INT_H

#include "ll_int.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The glibc functions we forward to, resolved once with dlsym/dlvsym. */
struct pti_real {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t,
			       const struct timespec *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
			      const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
};

/* The wrappers, in report order (pti_count). */
enum pti_wrapper {
	PTI_W_MUTEX_INIT,
	PTI_W_MUTEX_DESTROY,
	PTI_W_MUTEX_LOCK,
	PTI_W_MUTEX_TRYLOCK,
	PTI_W_MUTEX_UNLOCK,
	PTI_W_MUTEX_TIMEDLOCK,
	PTI_W_MUTEX_CLOCKLOCK,
	PTI_W_COND_INIT,
	PTI_W_COND_DESTROY,
	PTI_W_COND_WAIT,
	PTI_W_COND_TIMEDWAIT,
	PTI_W_COND_CLOCKWAIT,
	PTI_W_COND_SIGNAL,
	PTI_W_COND_BROADCAST,
	PTI_W_COUNT
};

/* What a mutex record stands for. */
enum pti_kind {
	PTI_NORMAL,	/* liblock lock, no owner checks (normal, default) */
	PTI_RECURSIVE,	/* liblock lock + owner and depth */
	PTI_ERRORCHECK, /* liblock lock + owner */
	PTI_POSIX,	/* left to glibc, on the application's memory */
};

/* One mapped mutex or condvar: one padding unit (LL_CACHELINE, 128 bytes
 * on x86), identity first (read by every lookup, written only under the
 * map's writer lock), then what lock holders and waiters write.  One unit
 * rather than two (identity and written state on separate lines) halves
 * the memory per mutex; the cost is that a holder's store of its token
 * invalidates the line other threads' lookups of the same mutex read.
 * Records live in chunks that are never freed (pti_map.c), so a stale
 * pointer or tag still reads a record. */
struct pti_obj {
	/* map linkage and identity: written by map writers only */
	_Atomic uintptr_t key;
	_Atomic(struct pti_obj *) next;
	_Atomic unsigned int gen; /* mutex: fork generation of its lock */
	_Atomic uint32_t serial;  /* incarnation, bumped at each hand-out */
	uint32_t index;		  /* place in pti_map_dir, fixed */
	int kind;		  /* enum pti_kind (mutexes) */
	bool gated; /* mutex: algorithm without trylock, see pti_mutex.c */
	/* mutex: normal, not gated, not handed over: ops entries called
	 * direct.  relaxed: cleared once, by a foreign unlock (pti_lock.c) */
	_Atomic bool fast;
	/* mutex: a normal mutex unlocked by a thread that did not lock it:
	 * from then on a plain futex lock in hword, which any thread may
	 * unlock, as glibc's (pti_lock.c) */
	_Atomic bool handed;
	/* mutex, normal: glibc's lock word in the application's memory may
	 * still be held by a thread that took it before this record existed
	 * (a thin holder, see pti_mutex.c).  Set when the record is built,
	 * cleared once by the first holder of the record's lock after it has
	 * taken and dropped that word (pti_drain()).  relaxed: read either by
	 * a thin holder, whose unlock the drain waits for, or by a holder of
	 * the record's lock, ordered after the drain by that lock */
	_Atomic bool thin;
	int clock; /* condvar: clock of absolute deadlines */
	liblock_lock_t lock;
	/* mutex: the lock's ops table, read once it is built (new_lock()),
	 * so the fast path calls its entries without liblock's dispatch */
	const struct ll_ops *ops;

	/* mutex: written by the holder (owner, depth) and by lockers (users);
	 * condvar: written by waiters and wakers */
	_Atomic uintptr_t owner;
	unsigned int depth;
	_Atomic uint32_t users;
	_Atomic uint32_t seq;	  /* condvar */
	_Atomic uint32_t waiters; /* condvar */
	_Atomic uint32_t hword;	  /* mutex, once handed: 0, 1 held, 2 waited */
} LL_ALIGNED;

static_assert(sizeof(struct pti_obj) == LL_CACHELINE, "one padding unit");

/* ---- configuration (pti_real.c) ---------------------------------------- */

/* The glibc functions, resolved on first need (also before our
 * constructor runs, if another library's constructor locks first).
 * Inline: every wrapper's pass-through path reads it. */
extern struct pti_real pti_real_fns LL_HIDDEN;
extern _Atomic int pti_real_state LL_HIDDEN; /* PTI_REAL_READY once built */
#define PTI_REAL_READY 2
const struct pti_real *pti_real_slow(void) LL_HIDDEN;
static inline const struct pti_real *pti_real(void)
{
	/* acquire: pairs with the release in pti_real_slow() */
	if (ll_likely(atomic_load_explicit(&pti_real_state,
					   memory_order_acquire) ==
		      PTI_REAL_READY))
		return &pti_real_fns;
	return pti_real_slow();
}

struct pti_config {
	bool replace;	       /* false: every mutex stays POSIX */
	bool gated;	       /* the algorithm has no trylock */
	const char *algorithm; /* canonical liblock name */
	bool ship;	       /* rcl: contended sections shipped */
	bool server;	       /* the algorithm runs a server (rcl) */
};
/* The run's configuration, read from $LIBLOCK_LOCK on first need. */
const struct pti_config *pti_config(void) LL_HIDDEN;

/* Call counters for $RCL_RUN_REPORT, updated only when it is set. */
extern bool pti_counting LL_HIDDEN;
void pti_count_slow(enum pti_wrapper w) LL_HIDDEN;
static inline void pti_count(enum pti_wrapper w)
{
	if (ll_unlikely(pti_counting))
		pti_count_slow(w);
}
/* Count a mutex or condvar record created, for the report. */
void pti_count_object(bool cond) LL_HIDDEN;
/* Count a normal mutex used without a record (pti_mutex.c). */
void pti_count_thin(void) LL_HIDDEN;

/* Log @msg once per process for each @flag (a static _Atomic bool). */
void pti_say_once(_Atomic bool *flag, const char *msg,
		  const char *what) LL_HIDDEN;

/* ---- the map (pti_map.c) ------------------------------------------------ */

enum pti_table { PTI_MUTEXES, PTI_CONDS };

/* The record of @key, or NULL.  Lock-free: never blocks a lookup. */
struct pti_obj *pti_map_find(enum pti_table t, uintptr_t key) LL_HIDDEN;

/* Under the writer lock: if @key has no record, build one with
 * @make(obj, @arg) (which fills everything but key/next and returns 0 or
 * an errno) and insert it; with @replace, an existing record is first
 * dropped with @drop.  Returns the record, or NULL with *@err set. */
typedef int (*pti_make_fn)(struct pti_obj *o, void *arg);
typedef void (*pti_drop_fn)(struct pti_obj *o);
struct pti_obj *pti_map_add(enum pti_table t, uintptr_t key, pti_make_fn make,
			    void *arg, bool replace, pti_drop_fn drop,
			    int *err) LL_HIDDEN;

/* Remove @key's record if @check(obj) returns 0 (else return that), and
 * free it after @drop.  Returns 0, ENOENT, or @check's error. */
int pti_map_remove(enum pti_table t, uintptr_t key,
		   int (*check)(struct pti_obj *), pti_drop_fn drop) LL_HIDDEN;

/* Find @key's record under the writer lock (NULL if none). */
struct pti_obj *pti_map_get_locked(enum pti_table t, uintptr_t key) LL_HIDDEN;

/* Everything the interposer keeps per thread, in one initial-exec block
 * (pti_real.c), so that a wrapper finds it with one GOT load. */
struct pti_thread {
	/* Non-zero while this thread runs liblock code: liblock's own
	 * pthread calls (the posix algorithm) must reach glibc, not us. */
	int inside;
	/* The thread's kernel id, as glibc notes it in a mutex it locks
	 * (__data.__owner), read on first need (0: not yet; reset in a fork
	 * child): see the thin unlock in pti_mutex.c */
	int tid;
};
extern __thread struct pti_thread pti_thread LL_HIDDEN
	__attribute__((tls_model("initial-exec")));

/* ---- mutex identity: a tag in the application's mutex -------------------
 * pthread_mutex_init() is glibc's own: the memory holds exactly the bytes
 * glibc writes (zeros and the type in __kind), so a copy made before first
 * use is, as under glibc, an unused mutex of the same type.  A mutex gets
 * its record at first use, and the record's identity is then written into
 * __list.__next, a word glibc uses only for robust mutexes (never ours):
 *
 *   tag = serial << 32 | (index + 1)
 *
 * index names the record in pti_map_dir (records are never freed, so any
 * index in range is safe to read), serial the record's incarnation (bumped
 * each time it is handed out).  A tag is valid only if that record's key
 * is this very address and its serial matches: a copy of a used mutex
 * (another address), memory zeroed or re-initialised (tag 0), stale and
 * garbage bytes all fail the check and get a new record of the type that
 * __kind says.  Tags are written only under the map's writer lock. */
#define PTI_DIR_BITS 20	  /* chunks */
#define PTI_CHUNK_BITS 10 /* records per chunk */
extern struct pti_obj *_Atomic pti_map_dir[1u << PTI_DIR_BITS] LL_HIDDEN;

static inline _Atomic uint64_t *pti_tag_word(pthread_mutex_t *m)
{
	static_assert(sizeof(m->__data.__list.__next) == sizeof(uint64_t),
		      "a 64-bit tag word");
	return (_Atomic uint64_t *)(void *)&m->__data.__list.__next;
}

static inline uint64_t pti_tag_of(const struct pti_obj *o)
{
	return (uint64_t)atomic_load_explicit(&o->serial, memory_order_relaxed)
		       << 32 |
	       ((uint64_t)o->index + 1);
}

/* The record @tag names if it is @key's, else NULL. */
static inline struct pti_obj *pti_tag_record(uint64_t tag, uintptr_t key)
{
	uint32_t index = (uint32_t)tag - 1; /* tag 0: out of range */
	struct pti_obj *chunk, *o;

	if (ll_unlikely(index >> PTI_CHUNK_BITS >= 1u << PTI_DIR_BITS))
		return NULL;
	/* acquire: pairs with the release in obj_new() (pti_map.c), so the
	 * chunk's zeroing is seen before its records are read.  A tag we
	 * wrote ourselves is ordered already (see pti_mutex_lookup()), but
	 * a tag another thread wrote in a mutex we never used, or garbage,
	 * may name a chunk allocated a moment ago (TSan reported the
	 * race); the acquire is a plain load on x86-64 */
	chunk = atomic_load_explicit(&pti_map_dir[index >> PTI_CHUNK_BITS],
				     memory_order_acquire);
	if (ll_unlikely(!chunk))
		return NULL;
	o = &chunk[index & ((1u << PTI_CHUNK_BITS) - 1)];
	if (ll_likely(atomic_load_explicit(&o->key, memory_order_relaxed) ==
			      key &&
		      atomic_load_explicit(&o->serial, memory_order_relaxed) ==
			      (uint32_t)(tag >> 32)))
		return o;
	return NULL;
}

/* pti_mutex_lookup() when @m's record is of an earlier fork generation:
 * the record, its lock re-created.  A mutex gets a record from the
 * wrappers at first use (recursive, error-checking), at first contention
 * (normal), or never (POSIX-only). */
struct pti_obj *pti_mutex_lookup_slow(pthread_mutex_t *m) LL_HIDDEN;
/* Bumped in each fork child: a mutex record whose gen differs has a lock
 * that other threads, now gone, may still be queued in. */
extern _Atomic unsigned int pti_fork_gen LL_HIDDEN;
static inline struct pti_obj *pti_mutex_lookup(pthread_mutex_t *m)
{
	/* acquire: pairs with the release in tag_set() (pti_mutex.c): the
	 * record named is fully built.  Bytes we did not write carry no
	 * ordering and fail the key/serial check. */
	uint64_t tag =
		atomic_load_explicit(pti_tag_word(m), memory_order_acquire);
	struct pti_obj *o = pti_tag_record(tag, (uintptr_t)m);

	/* No record: the callers build one, or take glibc's word (a thin
	 * mutex), and check the tag again there.  relaxed: pti_fork_gen
	 * changes only in a single-threaded child */
	if (ll_likely(o == NULL ||
		      atomic_load_explicit(&o->gen, memory_order_relaxed) ==
			      atomic_load_explicit(&pti_fork_gen,
						   memory_order_relaxed)))
		return o;
	return pti_mutex_lookup_slow(m);
}

/* fork(): the writer lock is taken around it so the child's map is whole. */
/* pti_create.c: no server start from a pthread_create() made between a
 * fork's prepare handlers and ours in the child (server_early()). */
/* Register the runtime's fork handlers, then ours, once (pti_real.c). */
void pti_atfork_first(void) LL_HIDDEN;
/* Look up the real exec and spawn functions (pti_exec.c), once. */
void pti_exec_resolve(void) LL_HIDDEN;
void pti_create_atfork_prepare(void) LL_HIDDEN;
void pti_create_atfork_parent(void) LL_HIDDEN;
void pti_map_atfork_prepare(void) LL_HIDDEN;
void pti_map_atfork_release(void) LL_HIDDEN;
/* In the child, writer lock held: call @fn on every record of @t. */
void pti_map_for_each_locked(enum pti_table t,
			     void (*fn)(struct pti_obj *)) LL_HIDDEN;
/* Take and drop the writer lock (lazy repair of a record after fork). */
void pti_map_writer_lock(void) LL_HIDDEN;
void pti_map_writer_unlock(void) LL_HIDDEN;

/* ---- fork (pti_mutex.c, pti_cond.c) ------------------------------------- */

/* In the child, single-threaded, writer lock held: re-create the locks
 * the forking thread holds (and take them again), note the others as
 * stale; condvars lose their (gone) waiters. */
void pti_mutex_after_fork(struct pti_obj *o) LL_HIDDEN;
void pti_cond_after_fork(struct pti_obj *o) LL_HIDDEN;

/* ---- lock operations (pti_lock.c) --------------------------------------- */

/* This thread's holder token: the address of its pti_thread, never 0,
 * unique among live threads (and the same in a fork child). */
#define PTI_SELF ((uintptr_t)&pti_thread)

enum pti_how { PTI_HOW_LOCK, PTI_HOW_TRY };
/* Acquire @o (block, try, or until @abstime on @clock if not NULL),
 * honouring its type; notes the holder.  Returns 0 or a pthread errno. */
int pti_enter(struct pti_obj *o, enum pti_how how, clockid_t clock,
	      const struct timespec *abstime) LL_HIDDEN;
/* The liblock lock alone (no holder bookkeeping). */
int pti_base_lock(struct pti_obj *o) LL_HIDDEN;
int pti_base_unlock(struct pti_obj *o) LL_HIDDEN;
/* Normal mutex @o, held by another thread, unlocked by this one (called
 * from @site): turn it into a handed one, free.  Said once. */
void pti_hand_over(struct pti_obj *o, const void *site) LL_HIDDEN;
/* Whether @o's fast path (ops entries called direct) may be used. */
bool pti_fast_ok(const struct pti_obj *o) LL_HIDDEN;

/* ---- shared by the mutex and condvar wrappers ---------------------------- */

/* How the calling thread holds mutex @m, for a condition wait. */
enum pti_hold {
	PTI_HOLD_GLIBC,	 /* a POSIX-only mutex, or nothing is replaced */
	PTI_HOLD_THIN,	 /* glibc's lock word: a normal mutex, no record yet */
	PTI_HOLD_RECORD, /* the record's lock (*@op) */
};
enum pti_hold pti_mutex_hold(pthread_mutex_t *m, struct pti_obj **op) LL_HIDDEN;
/* Take @m back after a thin hold was released for a wait: the lock
 * wrapper's work, without its count. */
int pti_mutex_take(pthread_mutex_t *m) LL_HIDDEN;
/* Release a held record completely for a condition wait, saving its
 * depth in *@depth.  Returns 0, or EPERM if a checked mutex is not ours. */
int pti_mutex_release(struct pti_obj *o, unsigned int *depth) LL_HIDDEN;
/* Take it back after the wait, restoring @depth. */
void pti_mutex_reacquire(struct pti_obj *o, unsigned int depth) LL_HIDDEN;

/* Symbol versions: bind wrapper @fn as @sym@@@ver (the default version). */
#define PTI_EXPORT(fn, sym, ver) __asm__(".symver " #fn "," #sym "@@" ver)
/* ... and also as the older @sym@@old through @other, an alias of @fn. */
#define PTI_EXPORT_OLD(fn, other, sym, old)                                    \
	extern __typeof__(fn) other LL_API_EXPORT __attribute__((alias(#fn))); \
	__asm__(".symver " #other "," #sym "@" old)
#define LL_API_EXPORT __attribute__((visibility("default")))

#endif /* PTI_INT_H */
