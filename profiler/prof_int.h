/* SPDX-License-Identifier: MIT */
/*
 * rcl-prof's preload library: internal interfaces.
 *
 * Design (docs/PROFILER.md; the RCL thesis §4.2.1, Tallent et al. PPoPP'10):
 * - every wrapper reads the TSC around the real call and updates the
 *   calling thread's own statistics block (struct prof_thread): plain
 *   stores, no atomics, nothing shared written on the uncontended path;
 * - a mutex is found by address in an open-addressing table (struct
 *   prof_lock) that also carries the waiter integral used for blame
 *   (blame shifting): ∫ nwait(t) dt, written only on the contended path and
 *   read by holders through a seqlock;
 * - a mutex belongs to a site (struct prof_site): the hash of the
 *   backtrace of its pthread_mutex_init, or of its first use for statically
 *   initialised mutexes; statistics are kept per (thread, site);
 * - at exit (or _exit, or a fatal signal: prof_signal.c) every thread
 *   block is summed and one text dump per process is
 *   written into $RCLPROF_OUT, which rcl-prof turns into the report.
 *
 * Memory model: C11 atomics only; nothing relies on x86-TSO.  The TSC is
 * assumed invariant and synchronised across cores (constant_tsc).
 */
#ifndef PROF_INT_H
#define PROF_INT_H

#include "config.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PROF_API __attribute__((visibility("default")))
#define PROF_ALIGNED __attribute__((aligned(LL_CACHELINE)))
#define prof_likely(x) __builtin_expect(!!(x), 1)
#define prof_unlikely(x) __builtin_expect(!!(x), 0)
#define PROF_TLS __thread __attribute__((tls_model("initial-exec")))

enum {
	PROF_MAX_SITES = 2048,	  /* site table size (power of two) */
	PROF_LOCK_BITS = 18,	  /* 2^18 tracked mutex addresses */
	PROF_HBUCKETS = 40,	  /* log2 histogram buckets, in cycles */
	PROF_HELD_MAX = 32,	  /* locks one thread can hold at once */
	PROF_BLAME_SLOTS = 256,	  /* per-thread (site, release caller) pairs */
	PROF_GBLAME_SLOTS = 4096, /* the same, summed over the process */
	PROF_DEPTH = 8,		  /* frames kept per site */
	PROF_TDEPTH = 24,	  /* frames kept per stack (trace mode) */
	PROF_TSTACKS = 1024,	  /* per-thread (site, stack) table */
	PROF_GSTACKS = 16384,	  /* the same, summed over the process */
	PROF_TEVENTS = 16384,	  /* timeline events kept per thread */
};
/* Site 0 collects what could not be identified (table full, early use). */
#define PROF_SITE_NONE 0

/* ---- real functions --------------------------------------------------- */

struct prof_real {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t,
			       const struct timespec *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
			      const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
		      void *);
	int (*join)(pthread_t, void **);
	void (*exit)(void *) __attribute__((noreturn));
	int (*rw_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
	int (*rw_destroy)(pthread_rwlock_t *);
	int (*rw_rdlock)(pthread_rwlock_t *);
	int (*rw_tryrdlock)(pthread_rwlock_t *);
	int (*rw_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockrdlock)(pthread_rwlock_t *, clockid_t,
			      const struct timespec *);
	int (*rw_wrlock)(pthread_rwlock_t *);
	int (*rw_trywrlock)(pthread_rwlock_t *);
	int (*rw_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockwrlock)(pthread_rwlock_t *, clockid_t,
			      const struct timespec *);
	int (*rw_unlock)(pthread_rwlock_t *);
	int (*spin_init)(pthread_spinlock_t *, int);
	int (*spin_destroy)(pthread_spinlock_t *);
	int (*spin_lock)(pthread_spinlock_t *);
	int (*spin_trylock)(pthread_spinlock_t *);
	int (*spin_unlock)(pthread_spinlock_t *);
};
extern struct prof_real prof_real;
/* Fill prof_real (idempotent, callable from any wrapper). */
void prof_resolve(void);
/* glibc's __pthread_mutex_* aliases, for calls made while prof_real is
 * being filled (a wrapper re-entered from dlsym). */
int prof_boot_lock(pthread_mutex_t *m);
int prof_boot_trylock(pthread_mutex_t *m);
int prof_boot_unlock(pthread_mutex_t *m);
int prof_boot_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int prof_boot_destroy(pthread_mutex_t *m);

/* ---- sites ------------------------------------------------------------ */

enum prof_kind { PROF_KIND_INIT = 1, PROF_KIND_STATIC, PROF_KIND_FIRST };
/* What a site's locks are: a reader-writer lock makes two sites, one per
 * side, so that reads and writes are ranked separately. */
enum prof_type {
	PROF_TYPE_MUTEX,
	PROF_TYPE_RDLOCK, /* pthread_rwlock_t, read side */
	PROF_TYPE_WRLOCK, /* pthread_rwlock_t, write side */
	PROF_TYPE_SPIN,
};

struct prof_site {
	_Atomic uint64_t key; /* 0 = free slot */
	_Atomic int ready;    /* fields below are published */
	int kind;
	int type; /* enum prof_type */
	int nframes;
	const void *obj;	  /* the mutex, for PROF_KIND_STATIC */
	void *frames[PROF_DEPTH]; /* return addresses, innermost first */
	_Atomic uint64_t instances;
};
extern struct prof_site prof_sites[PROF_MAX_SITES];

/* Site id for a pthread_*_init of a lock of @type called from @caller
 * (return address of the wrapper), or for the first use of a lock @m not
 * initialised through us.  For PROF_TYPE_WRLOCK the read side's site id
 * goes to *@rsite (the same call site). */
int prof_site_init(const void *caller, int type, int *rsite);
int prof_site_first_use(const void *m, const void *caller, int type,
			int *rsite);

/* ---- mutex table ------------------------------------------------------ */

/* One entry per mutex address.  Written by pthread_mutex_init/destroy
 * (site) and by waiters (the seqlock-protected integral); holders only
 * read it. */
struct prof_lock {
	_Atomic uintptr_t addr; /* 0 = free slot */
	_Atomic int site;	/* -1: not known yet (static initialiser) */
	_Atomic int rsite;	/* an rwlock's read side; set before site */
	_Atomic unsigned seq;	/* odd while a waiter updates the integral */
	_Atomic unsigned nwait; /* threads blocked in the real lock */
	_Atomic uint64_t area;	/* ∫ nwait dt, in cycles, up to t_last */
	_Atomic uint64_t t_last;
	/* ∫ [nwait > 0 and the program serialises] dt, in cycles, up to
	 * t_last; whether it grows from t_last on (prof_serialising() at
	 * the last edge) */
	_Atomic uint64_t serial;
	_Atomic unsigned serial_on;
	/* 0 until the thread that claimed the entry has written site and
	 * rsite (release; prof_lock_site() acquires it): site 0 reads as
	 * PROF_SITE_NONE, a final value, before that */
	_Atomic unsigned ready;
	/* The integral at the last release that left threads waiting: where
	 * the next hold starts at the earliest.  A hold that finds waiters
	 * outside the sample reads no clock at its acquisition and starts
	 * its blame there (prof_held.blind).  Written before the program's
	 * unlock and read after its lock: ordered by the program's lock. */
	_Atomic uint64_t rel_area;
} PROF_ALIGNED;
static_assert(sizeof(struct prof_lock) == LL_CACHELINE, "one lock per line");

/* The table (2^PROF_LOCK_BITS entries), NULL until mapped. */
extern struct prof_lock *_Atomic prof_locks;
/* One bit per entry ever claimed (entries are never given back), so that
 * the scans at a fork and at the dump read the entries in use, not the
 * whole 16 MB table: each untouched page read costs a page fault. */
extern _Atomic uint64_t prof_lock_used[((size_t)1 << PROF_LOCK_BITS) / 64];
/* The first entry claimed at or after index @from, or -1. */
long prof_lock_next_used(size_t from);

/* Home slot of address @a: Fibonacci hashing of the address without its
 * three always-zero low bits (one multiplication). */
static inline uint64_t prof_lock_hash(uintptr_t a)
{
	return ((uint64_t)(a >> 3) * 0x9e3779b97f4a7c15ULL) >>
	       (64 - PROF_LOCK_BITS);
}

/* The slow paths of prof_lock_get()/prof_lock_find(): the whole probe,
 * the table's creation, the slot's claim. */
struct prof_lock *prof_lock_lookup(const void *m, bool create);

/* Entry of @m, created if needed; NULL when the table is full.  Inline:
 * the common case is a hit in the home slot. */
static inline struct prof_lock *prof_lock_get(const void *m)
{
	/* acquire: pairs with the release that publishes the table */
	struct prof_lock *t =
		atomic_load_explicit(&prof_locks, memory_order_acquire);

	if (prof_likely(t != NULL)) {
		struct prof_lock *lk = &t[prof_lock_hash((uintptr_t)m)];

		if (prof_likely(atomic_load_explicit(&lk->addr,
						     memory_order_relaxed) ==
				(uintptr_t)m))
			return lk;
	}
	return prof_lock_lookup(m, true);
}

/* Entry of @m or NULL, never creating one. */
static inline struct prof_lock *prof_lock_find(const void *m)
{
	return prof_lock_lookup(m, false);
}
/* The waiter integral projected to @now (seqlock read); the number of
 * waiters goes to *@nwait when @nwait is not NULL.  Inline: every timed
 * hold reads it at both ends. */
static inline uint64_t prof_lock_area(struct prof_lock *lk, uint64_t now,
				      unsigned *nwait)
{
	unsigned s1, s2, n;
	uint64_t area, last;

	do {
		/* acquire: pairs with the release that ends an update in
		 * prof_lock_wait_edge() */
		s1 = atomic_load_explicit(&lk->seq, memory_order_acquire);
		area = atomic_load_explicit(&lk->area, memory_order_relaxed);
		n = atomic_load_explicit(&lk->nwait, memory_order_relaxed);
		last = atomic_load_explicit(&lk->t_last, memory_order_relaxed);
		/* acquire fence: the field loads above complete before the
		 * re-check of seq (pairs with the writer's release fence) */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&lk->seq, memory_order_relaxed);
	} while ((s1 & 1) || s1 != s2);
	if (n && now > last)
		area += (uint64_t)n * (now - last);
	if (nwait)
		*nwait = n;
	return area;
}
/* The serialising integral projected to @now (seqlock read). */
uint64_t prof_lock_serial(struct prof_lock *lk, uint64_t now);
/* Before @lk's site changes (destroy, re-init): its serialising time so
 * far goes to its site's total (prof_site_serial) and restarts from 0. */
void prof_lock_retire(struct prof_lock *lk);
/* A waiter starts (+1) or stops (-1) blocking on @lk at @now. */
void prof_lock_wait_edge(struct prof_lock *lk, uint64_t now, int delta);
/* Site of @lk, resolving a first use (as a lock of @type) when needed. */
int prof_lock_site(struct prof_lock *lk, const void *m, const void *caller,
		   int type);

/* ---- per-thread statistics -------------------------------------------- */

/* Calls that reached each wrapper (order of the dump's "calls" line). */
enum prof_call {
	PC_INIT,
	PC_DESTROY,
	PC_LOCK,
	PC_TRYLOCK,
	PC_TIMEDLOCK,
	PC_UNLOCK,
	PC_COND_WAIT,
	PC_COND_TIMEDWAIT,
	PC_COND_SIGNAL,
	PC_COND_BROADCAST,
	PC_CREATE,
	PC_JOIN,
	PC_EXIT,
	PC_CLOCKLOCK,
	PC_COND_CLOCKWAIT,
	PC_RW_INIT,
	PC_RW_DESTROY,
	PC_RDLOCK,
	PC_TRYRDLOCK,
	PC_TIMEDRDLOCK,
	PC_CLOCKRDLOCK,
	PC_WRLOCK,
	PC_TRYWRLOCK,
	PC_TIMEDWRLOCK,
	PC_CLOCKWRLOCK,
	PC_RW_UNLOCK,
	PC_SPIN_INIT,
	PC_SPIN_DESTROY,
	PC_SPIN_LOCK,
	PC_SPIN_TRYLOCK,
	PC_SPIN_UNLOCK,
	PC_N
};

struct prof_stat {
	uint64_t acq, contended, try_fail, timed_out;
	/* per thread: prof_now() before which no hold of the site is
	 * probed (prof_wrap.c), on acq's line; not summed into the totals */
	uint64_t probe_next;
	uint64_t hold, wait, cs, cond_wait; /* cycles */
	uint64_t hold_max, wait_max, blame;
	uint64_t cs_misses, cs_counted; /* PAPI, when counting */
	/* Sampling strata: contended holds are always timed; uncontended
	 * ones are counted (holds), and the sampled ones (timed) also add
	 * their times to hold_u/cs_u, which rcl-prof scales by holds/timed. */
	uint64_t holds, timed, hold_u, cs_u;
	uint64_t serial; /* only in the dump's totals: prof_site_serial */
	/* The off-CPU probe (prof_wrap.c): probed holds, their wall time and
	 * the part of it spent switched out voluntarily (ns), and the probed
	 * holds that switched out voluntarily */
	uint64_t probes, probe_wall, probe_block, probe_nblock;
	uint64_t hist_hold[PROF_HBUCKETS];
	uint64_t hist_wait[PROF_HBUCKETS];
};

struct prof_held {
	uintptr_t addr; /* the lock's address (the unlock's key) */
	struct prof_lock *lk;
	int site;
	unsigned depth; /* recursive re-acquisitions */
	bool sampled;	/* counts in the time sums */
	bool contended; /* acquired after waiting */
	bool lean;	/* untimed, no waiter at t_acq: `seq` valid */
	/* untimed, found waiters at t_acq: `area` is the lock's rel_area,
	 * the integral at the release before (or later) */
	bool blind;
	unsigned seq;		/* the lock's seqlock at t_acq (lean holds) */
	uint64_t t_call, t_acq; /* 0 when not read (unsampled hold) */
	uint64_t area, misses;
	int stack; /* th->tstack entry (trace mode), or -1 */
};

struct prof_blame {
	uintptr_t ret; /* release caller; 0 = free slot */
	int site;
	uint64_t cycles, count;
};

/* ---- trace mode ($RCLPROF_TRACE: rcl-prof --folded / --plot) ----------
 *
 * Stacks: every contended acquisition and every timed hold captures its
 * call stack (backtrace(3)); wait and hold cycles are summed per (site,
 * stack) in the thread's table, merged into the process's at exit.
 * Timeline: the thread's first PROF_TEVENTS intervals (waits, timed
 * holds, condition waits, joins), in a buffer of its own. */
struct prof_thread;

enum prof_ev_kind { PROF_EV_WAIT, PROF_EV_HOLD, PROF_EV_COND, PROF_EV_JOIN };

struct prof_tstack {
	uint64_t key; /* 0 = free slot */
	int site, nframes;
	void *frames[PROF_TDEPTH]; /* innermost first */
	uint64_t wait, nwaits, hold, nholds;
};

struct prof_ev {
	uint64_t t0, t1; /* TSC */
	int32_t site, kind;
};

/* One thread life's timeline; kept until the dump. */
struct prof_trace {
	struct prof_trace *next;
	unsigned id;
	uint64_t t_start, t_end; /* t_end 0 while the thread lives */
	uint64_t dropped;	 /* events past the buffer */
	_Atomic unsigned nev;	 /* published events */
	struct prof_ev ev[PROF_TEVENTS];
};

extern bool prof_trace_on; /* set once by the constructor */
extern struct prof_tstack prof_gstacks[PROF_GSTACKS];
extern struct prof_trace *prof_traces; /* ended lives, under prof_reg_lock */

/* Index of the calling thread's entry for (@site, its call stack from
 * @caller outwards), created if needed; -1 when the table is full. */
int prof_trace_stack(struct prof_thread *th, int site, const void *caller);
/* Add the stacks of @src to @dst (a table of @size entries). */
void prof_tstack_merge(struct prof_tstack *dst, unsigned size,
		       const struct prof_tstack *src);

/* ---- serialising time ---------------------------------------------------
 *
 * The program serialises while at most prof_serial_max of its live
 * threads can run (the others are blocked on a lock, a condition variable
 * or a join): at least half of the CPUs it may use sit idle.  The counts
 * are updated on the blocking paths only; each lock samples the predicate
 * at its waiter edges (prof_lock_wait_edge). */
extern _Atomic int prof_nlive, prof_nblocked;
extern int prof_ncpu, prof_serial_max;
/* Serialising time of the locks whose site changed, per site (a lock's
 * integral belongs to the lock, not to its holds: holders read nothing
 * for it).  An rwlock's goes to its write side's site; rcl-prof splits
 * it between the two sides by their blame (prof_site_rpair: the read
 * side's site + 1 of a write side, 0 for other sites). */
extern _Atomic uint64_t prof_site_serial[PROF_MAX_SITES];
extern _Atomic int prof_site_rpair[PROF_MAX_SITES];
/* Some lock has accrued serialising time (the dump and the fork child
 * then walk the lock table). */
extern _Atomic bool prof_serial_used;

static inline bool prof_serialising(void)
{
	/* relaxed: a statistical snapshot; no data is published through
	 * these counters */
	int live = atomic_load_explicit(&prof_nlive, memory_order_relaxed);
	int blocked =
		atomic_load_explicit(&prof_nblocked, memory_order_relaxed);

	return live - blocked <= prof_serial_max;
}

/* The calling thread blocks (+1) or runs again (-1). */
static inline void prof_block(int delta)
{
	/* relaxed: a count only (see prof_serialising) */
	atomic_fetch_add_explicit(&prof_nblocked, delta, memory_order_relaxed);
}

struct prof_thread {
	struct prof_thread *next; /* registry list, under prof_reg_lock */
	bool live;
	/* creation index: the n-th pthread_create call of the program (as
	 * rcl-run --colocate numbers threads); 0 for the main thread */
	unsigned long index;
	uint64_t t_start, t_join;   /* lifetime start; cycles in pthread_join */
	uint64_t t_outer, cs_union; /* outermost section start; union total */
	/* outermost sections closed: uncontended ones, sampled ones among
	 * them; those that started with a contended acquisition (always
	 * timed) and their part of cs_union */
	uint64_t sections, sections_timed, sections_c, union_c;
	bool section_c; /* the current section started contended */
	uint64_t rng;	/* xorshift state for the sampling */
	/* The off-CPU probe (prof_wrap.c), one hold at a time: the probed
	 * hold's lock (NULL: none), and the clock (ns), CPU time (ns) and
	 * voluntary context switches at its acquisition.  Out of
	 * prof_held, which the hot path copies. */
	struct prof_lock *probe_lk;
	uint64_t p_wall, p_cpu, p_nvcsw;
	bool timing; /* the current section is timed */
	uint64_t thread_time, threads, untracked;
	uint64_t signals, broadcasts, cond_waits;
	uint64_t calls[PC_N];
	struct prof_lock *waiting_on; /* for the fork child's fix-up */
	unsigned nheld;
	/* highest site id summed in, plus one: in prof_total (a thread's
	 * sites are site_bits) */
	int max_site;
	/* the sites whose stat[] entries this thread wrote: summing and
	 * zeroing visit only those (stat[] is 1.6 MB, mostly never
	 * touched, and a pass over it faulted its pages in at every
	 * thread's exit) */
	uint64_t site_bits[PROF_MAX_SITES / 64];
	int papi_set; /* PAPI event set, -1 if none */
	struct prof_held held[PROF_HELD_MAX];
	struct prof_trace *trace; /* trace mode: this life's timeline */
	bool tstack_used;	  /* tstack has entries */
	struct prof_tstack tstack[PROF_TSTACKS];
	struct prof_blame blame[PROF_BLAME_SLOTS];
	/* the slot of blame[] the last blamed hold went to (a thread
	 * usually releases a lock at the same place), or NULL */
	struct prof_blame *blame_last;
	struct prof_stat stat[PROF_MAX_SITES];
};

#define PROF_DEAD ((struct prof_thread *)1)

/* @th writes stat[@site]. */
static inline void prof_site_touch(struct prof_thread *th, int site)
{
	th->site_bits[(unsigned)site / 64] |= 1ull << ((unsigned)site % 64);
}

/* The first site of @th's site_bits at or after @from, or -1. */
static inline int prof_next_site(const struct prof_thread *th, int from)
{
	for (int w = from / 64; w < PROF_MAX_SITES / 64; w++) {
		uint64_t bits = th->site_bits[w];

		if (w == from / 64)
			bits &= ~0ull << (from % 64);
		if (bits)
			return w * 64 + __builtin_ctzll(bits);
	}
	return -1;
}
/* The calling thread's block: NULL before its first event, PROF_DEAD once
 * it has finished (or could not get one). */
extern PROF_TLS struct prof_thread *prof_cur;
extern PROF_TLS int prof_busy; /* inside the profiler's own code */
extern _Atomic bool prof_on;   /* profiling enabled */
struct prof_thread *prof_self_slow(void);

/* The calling thread's block, created on first use; NULL when this call
 * must not be profiled (profiler off, re-entered, thread finished).  The
 * fast path is inline: two TLS loads and a relaxed flag. */
static inline struct prof_thread *prof_self(void)
{
	struct prof_thread *th = prof_cur;

	if (prof_likely(th > PROF_DEAD && !prof_busy &&
			atomic_load_explicit(&prof_on, memory_order_relaxed)))
		return th;
	return prof_self_slow();
}
/* Return the thread's state to the pool, adding it into the totals. */
void prof_thread_exit(void);

/* The creation index the next thread block of this thread gets: set by
 * the pthread_create trampoline before the thread's first event. */
extern PROF_TLS unsigned long prof_thread_index;

/* A thread's acquisitions of its most used sites, kept when it exits (for
 * the thread-by-lock matrix: rcl-prof --colocate-plan).  Under
 * prof_reg_lock. */
enum { PROF_TROW_SITES = 8 };
struct prof_trow {
	struct prof_trow *next;
	unsigned long index;
	int n;
	int site[PROF_TROW_SITES];
	uint64_t acq[PROF_TROW_SITES];
};
extern struct prof_trow *prof_trows;
/* Fill @row with @th's most acquired sites (at most PROF_TROW_SITES). */
void prof_trow_fill(struct prof_trow *row, const struct prof_thread *th);

/* Time each outermost section with probability 1/prof_sample
 * ($RCLPROF_SAMPLE, default 1: all); the others only count, and rcl-prof
 * scales the sampled times.  Random rather than every N-th, which would
 * alias with periodic lock patterns (a thread that re-acquires a lock N
 * times, then waits long for it).  Returns whether the calling thread's
 * current section is timed, deciding it when no mutex is held. */
extern uint32_t prof_sample;

/* The next number of @th's xorshift generator (sampling, the probe). */
static inline uint64_t prof_rand(struct prof_thread *th)
{
	uint64_t x = th->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	th->rng = x;
	return x;
}

static inline bool prof_timing(struct prof_thread *th)
{
	if (th->nheld == 0)
		th->timing = prof_sample == 1 ||
			     (((prof_rand(th) >> 32) * prof_sample) >> 32) == 0;
	return th->timing;
}

/* The hold bookkeeping (prof_acquired, prof_released) is in prof_wrap.c,
 * inlined into the wrappers. */

/* Add (@ret, @site) += (@cycles, @count) to a blame table of @size; the
 * slot it went to (NULL: none, the table is crowded). */
struct prof_blame *prof_blame_add(struct prof_blame *tab, unsigned size,
				  uintptr_t ret, int site, uint64_t cycles,
				  uint64_t count);

/* ---- process-wide state ----------------------------------------------- */

extern pthread_mutex_t prof_reg_lock;	 /* registry; taken with prof_real */
extern struct prof_thread *prof_threads; /* registry list */
extern struct prof_thread *prof_total;	 /* exited threads, summed */
extern struct prof_blame prof_gblame[PROF_GBLAME_SLOTS];
extern const char *prof_papi_status; /* NULL when counting */

void prof_sum_into(struct prof_thread *dst, struct prof_thread *src,
		   uint64_t now);
void prof_zero(struct prof_thread *th);
/* In the child of fork(): drop the other threads, restart the counts. */
void prof_fork_child(void);
/* Restart the process clock (wall time, TSC calibration). */
void prof_dump_reset(void);
void prof_dump(void);
void prof_papi_init(void);
int prof_papi_thread(void);
uint64_t prof_papi_read(int set);
void prof_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prof_log for signal handlers: "rcl-prof: MSG[ARG]" with write(2). */
void prof_log_safe(const char *msg);
void prof_log_safe2(const char *msg, const char *arg);
/* $RCLPROF_OUT, recorded at start-up for the dump writer. */
void prof_dump_dir(const char *dir);
/* The dump from a signal handler or _exit (async-signal-safe); @ended
 * says how the process ends ("signal 11", "_exit 3"). */
void prof_dump_safe(const char *ended);
/* Take over the fatal signals and sigaction/signal (prof_signal.c). */
void prof_signal_init(void);
void prof_signal_fork_child(void);
/* The process's dump, written once whoever asks first: the destructor
 * (@what NULL: the normal writer), _exit or a fatal signal ("_exit",
 * "signal" and the status or signal number @n: the async-signal-safe
 * writer).  A second caller waits for the first to finish. */
void prof_final_dump(const char *what, int n);
/* Pid of the process the profiler state belongs to (a vfork child
 * shares it and must not write). */
extern _Atomic int prof_pid;

/* The thread's cache-miss counter, 0 when not counting. */
static inline uint64_t prof_misses(const struct prof_thread *th)
{
	return th->papi_set >= 0 ? prof_papi_read(th->papi_set) : 0;
}

/* ---- time ------------------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t prof_now(void)
{
	return __rdtsc();
}
#else
static inline uint64_t prof_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#endif
