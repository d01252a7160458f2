/* SPDX-License-Identifier: MIT */
/*
 * The interposed pthread functions.
 *
 * Timestamps of one hold (docs/PROFILER.md):
 *   t_call  the lock call is entered       t_acq   it returns, lock held
 *   t_rel   the unlock call is entered     t_done  it returns
 * wait = t_acq - t_call (contended acquisitions), hold = t_rel - t_acq,
 * cs = t_done - t_call (the thesis's "time in critical section including
 * acquisition and release").
 *
 * pthread_mutex_lock first tries the real trylock: success is the
 * uncontended path (two TSC reads, a table lookup, a seqlock read, plain
 * stores to the thread's own block); failure counts a contended
 * acquisition and registers the thread as a waiter of the mutex for the
 * blame integral.  pthread_cond_wait closes the hold at entry (the mutex
 * is released inside) and opens a new one at return.
 *
 * Every wrapper is exported unversioned: the dynamic linker binds an
 * unversioned definition to a versioned reference, so programs built
 * against pthread_create@GLIBC_2.34 or pthread_cond_wait@GLIBC_2.3.2 reach
 * these (tests/profiler/t_wrappers.sh checks each one).
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>

#define CALLER ((const void *)__builtin_return_address(0))

/* True while the real functions are not known (early start-up). */
static inline bool unresolved(void)
{
	if (prof_likely(prof_real.mutex_unlock != NULL))
		return false;
	prof_resolve();
	return prof_real.mutex_unlock == NULL;
}

/* How a lock or wait call blocks: which call, and its deadline. */
struct how {
	enum prof_call call;
	clockid_t clock;
	const struct timespec *abstime;
};

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The real calls of each lock type.  Every use passes a constant @type,
 * so the switches fold away. */
ALWAYS_INLINE int real_try(int type, void *l)
{
	switch (type) {
	case PROF_TYPE_RDLOCK:
		return prof_real.rw_tryrdlock(l);
	case PROF_TYPE_WRLOCK:
		return prof_real.rw_trywrlock(l);
	case PROF_TYPE_SPIN:
		return prof_real.spin_trylock(l);
	default:
		return prof_real.mutex_trylock(l);
	}
}

ALWAYS_INLINE int real_lock(int type, void *l, const struct how *h)
{
	switch (h->call) {
	case PC_TIMEDLOCK:
		return prof_real.mutex_timedlock(l, h->abstime);
	case PC_CLOCKLOCK:
		return prof_real.mutex_clocklock(l, h->clock, h->abstime);
	case PC_TIMEDRDLOCK:
		return prof_real.rw_timedrdlock(l, h->abstime);
	case PC_CLOCKRDLOCK:
		return prof_real.rw_clockrdlock(l, h->clock, h->abstime);
	case PC_TIMEDWRLOCK:
		return prof_real.rw_timedwrlock(l, h->abstime);
	case PC_CLOCKWRLOCK:
		return prof_real.rw_clockwrlock(l, h->clock, h->abstime);
	default:
		break;
	}
	switch (type) {
	case PROF_TYPE_RDLOCK:
		return prof_real.rw_rdlock(l);
	case PROF_TYPE_WRLOCK:
		return prof_real.rw_wrlock(l);
	case PROF_TYPE_SPIN:
		return prof_real.spin_lock(l);
	default:
		return prof_real.mutex_lock(l);
	}
}

ALWAYS_INLINE int real_unlock(int type, void *l)
{
	switch (type) {
	case PROF_TYPE_RDLOCK:
	case PROF_TYPE_WRLOCK:
		return prof_real.rw_unlock(l);
	case PROF_TYPE_SPIN:
		return prof_real.spin_unlock(l);
	default:
		return prof_real.mutex_unlock(l);
	}
}

/* Success of a lock call: EOWNERDEAD (robust mutex) acquires too. */
ALWAYS_INLINE bool got_it(int rc)
{
	return rc == 0 || rc == EOWNERDEAD;
}

static int real_wait(pthread_cond_t *c, pthread_mutex_t *m, const struct how *h)
{
	if (h->call == PC_COND_TIMEDWAIT)
		return prof_real.cond_timedwait(c, m, h->abstime);
	if (h->call == PC_COND_CLOCKWAIT)
		return prof_real.cond_clockwait(c, m, h->clock, h->abstime);
	return prof_real.cond_wait(c, m);
}

static struct prof_stat *stat_of(struct prof_thread *th, int site)
{
	prof_site_touch(th, site);
	return &th->stat[site];
}

ALWAYS_INLINE void hist_add(uint64_t *hist, uint64_t cycles)
{
	int b = cycles ? 64 - __builtin_clzll(cycles) : 0;

	hist[b < PROF_HBUCKETS ? b : PROF_HBUCKETS - 1]++;
}

/* Trace mode: record interval [@t0, @t1) of @kind on lock site @site. */
static void trace_ev(struct prof_thread *th, int kind, int site, uint64_t t0,
		     uint64_t t1)
{
	struct prof_trace *tr = th->trace;
	unsigned n;

	if (!tr)
		return;
	n = atomic_load_explicit(&tr->nev, memory_order_relaxed);
	if (n == PROF_TEVENTS) {
		tr->dropped++;
		return;
	}
	tr->ev[n] = (struct prof_ev){t0, t1, site, kind};
	/* release: publishes the event to the dump writer, which may run
	 * while this thread lives; pairs with its acquire load of nev */
	atomic_store_explicit(&tr->nev, n + 1, memory_order_release);
}

/* Index of @lk in th->held, or -1. */
ALWAYS_INLINE int held_find(struct prof_thread *th, const struct prof_lock *lk)
{
	for (int i = (int)th->nheld - 1; i >= 0; i--)
		if (th->held[i].lk == lk)
			return i;
	return -1;
}

/* Where the blame of a hold that found waiters on @lk starts when its
 * acquisition read no clock (a blind hold): at the integral of the last
 * release that left waiters, or at the integral up to the last waiter
 * edge (@area, not projected), whichever is later.  Both are lower bounds
 * of the integral at the acquisition, so the blame is an upper bound: too
 * high by the waiting in the hand-over gap before the acquisition, which
 * a thread taking the lock back from its own release makes tiny. */
ALWAYS_INLINE uint64_t blind_start(struct prof_lock *lk, uint64_t area)
{
	/* relaxed: the program's lock orders this load after the store of
	 * release_mark() before the previous unlock */
	uint64_t r = atomic_load_explicit(&lk->rel_area, memory_order_relaxed);

	return r > area ? r : area;
}

/* A release of @lk whose integral @area was read with @nwait waiters:
 * when threads still wait, the next hold may be blind (blind_start()).
 * Called before the program's unlock.  Without sampling every hold is
 * timed and none is blind: no store, which would take the lock's line
 * away from the other CPUs inside the section, at nearly every release
 * of a lock with sleeping waiters. */
ALWAYS_INLINE void release_mark(struct prof_lock *lk, uint64_t area,
				unsigned nwait)
{
	/* relaxed: ordered by the program's unlock and the next lock (the
	 * pair of blind_start()); concurrent read releases may store out of
	 * order, and any of their values is still a lower bound */
	if (nwait && prof_sample != 1)
		atomic_store_explicit(&lk->rel_area, area,
				      memory_order_relaxed);
}

/* The acquisition time of an untimed hold of a lock of @type: 0 (not
 * read), except for a read hold, which other readers overlap, so that the
 * last release is no bound of its start: read when the lean path cannot
 * take it (it found waiters, mostly). */
ALWAYS_INLINE uint64_t untimed_acq(int type)
{
	return type == PROF_TYPE_RDLOCK ? prof_now() : 0;
}

/* ---- the off-CPU probe ------------------------------------------------
 * A section that sleeps (I/O, a nested lock's futex, a nap) spends time
 * that a server CPU cannot shorten: RCL helps sections that run, not
 * sections that wait.  Per thread and lock site, once a random gap has
 * passed since the site's last probe (PROF_PROBE_GAP TSC ticks on
 * average), each timed hold of the site is probed with probability
 * 1/PROF_PROBE_PICK until one is: it reads, at its acquisition and at its
 * release, the monotonic clock, the thread's CPU clock and
 * getrusage(RUSAGE_THREAD) for its voluntary context switches.  If the
 * thread switched out voluntarily in between, the hold's wall time less
 * its CPU time is time blocked.  A preemption (an involuntary switch) is
 * not counted: a preempted holder is what a server cures.
 * The choice is made at the acquisition, before the hold's length is
 * known.  Not simply the first hold after the gap: that one mostly comes
 * after a long wait for the lock, or after other work, so of two
 * sections a thread runs back to back the second would hardly ever be
 * probed (tinyproxy's log lines: the write section after the wait, not
 * the fsync section after it).  A gap per site, not per thread: a lock
 * taken once per hundred acquisitions of another still gets probes.
 * Four system calls per probe, two at each end: those at the acquisition
 * lengthen the section (~0.5 us), and on a contended lock one such hold
 * can start a convoy of futex sleeps; hence a gap of milliseconds (every
 * ~1 ms per thread cost 5-8 points on a contended program,
 * docs/PROFILER.md).  One probe at a time per thread. */
#define PROF_PROBE_GAP (1ull << 24) /* 4-8 ms of TSC at 2-4 GHz */
#define PROF_PROBE_PICK 16u

struct probe_read {
	uint64_t wall, cpu, nvcsw;
};

static __attribute__((noinline)) bool probe_read(struct probe_read *r)
{
	int saved = errno;
	struct rusage ru;
	struct timespec cpu, wall;
	/* The CPU time from the clock, not from getrusage(): that one is
	 * the scheduler's sum as of the thread's last tick or switch, up to
	 * a tick stale, where the clock adds the running slice. */
	bool ok = getrusage(RUSAGE_THREAD, &ru) == 0 &&
		  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 &&
		  clock_gettime(CLOCK_MONOTONIC, &wall) == 0;

	errno = saved;
	if (!ok)
		return false;
	r->wall = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
	r->cpu = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
	r->nvcsw = (uint64_t)ru.ru_nvcsw;
	return true;
}

/* A timed hold of @lk, of the site of @st, starts after the site's gap:
 * probe it, with probability 1/PROF_PROBE_PICK, unless another hold is
 * probed.  No other hold of the site is probed until this one ends
 * (probe_next at its maximum). */
static __attribute__((noinline)) void
probe_start(struct prof_thread *th, struct prof_stat *st, struct prof_lock *lk)
{
	struct probe_read r;

	if (th->probe_lk || (prof_rand(th) >> 32) % PROF_PROBE_PICK != 0)
		return;
	st->probe_next = UINT64_MAX;
	if (!probe_read(&r))
		return;
	th->probe_lk = lk;
	th->p_wall = r.wall;
	th->p_cpu = r.cpu;
	th->p_nvcsw = r.nvcsw;
}

/* The probed hold ends: add it to @st, draw the site's next gap. */
static __attribute__((noinline)) void probe_end(struct prof_thread *th,
						struct prof_stat *st)
{
	struct probe_read r;

	th->probe_lk = NULL;
	/* The next probe after a random gap, PROF_PROBE_GAP on average: a
	 * fixed one aliases with a periodic program (one that alternates
	 * two locks would only ever have one of them probed). */
	st->probe_next = prof_now() + PROF_PROBE_GAP / 2 +
			 (prof_rand(th) >> 32) % PROF_PROBE_GAP;
	if (!probe_read(&r) || r.wall < th->p_wall)
		return;
	st->probes++;
	st->probe_wall += r.wall - th->p_wall;
	if (r.nvcsw == th->p_nvcsw)
		return;
	st->probe_nblock++;
	if (r.wall - th->p_wall > r.cpu - th->p_cpu)
		st->probe_block += (r.wall - th->p_wall) - (r.cpu - th->p_cpu);
}

/* Bookkeeping shared by the lock and condition-variable wrappers.
 * Times are 0 when they were not read (a hold outside the sample); the
 * hold is in the sample when prof_timing() said so for its section. */
ALWAYS_INLINE void prof_acquired(struct prof_thread *th, struct prof_lock *lk,
				 int site, uint64_t t_call, uint64_t t_acq,
				 bool contended, int stack)
{
	struct prof_stat *st = &th->stat[site];
	int i = held_find(th, lk);
	uint64_t area;
	unsigned nwait;

	if (i >= 0) { /* recursive mutex: still the same hold */
		th->held[i].depth++;
		return;
	}
	prof_site_touch(th, site);
	st->acq++;
	if (contended) {
		uint64_t w = t_acq - t_call;

		st->contended++;
		st->wait += w;
		if (w > st->wait_max)
			st->wait_max = w;
		hist_add(st->hist_wait, w);
	}
	if (th->nheld == PROF_HELD_MAX) {
		th->untracked++;
		return;
	}
	/* Outside the sample (t_acq 0) the integral is not projected: exact
	 * when no thread waits; a hold that finds waiters is blind, its
	 * blame starts at the last release's integral (blind_start()). */
	area = prof_lock_area(lk, t_acq, &nwait);
	if (!t_acq && nwait)
		area = blind_start(lk, area);
	if (th->nheld == 0) {
		th->section_c = contended;
		th->timing |= contended;
		th->t_outer = th->timing ? t_call : 0;
	}
	th->held[th->nheld++] = (struct prof_held){
		.addr = atomic_load_explicit(&lk->addr, memory_order_relaxed),
		.lk = lk,
		.site = site,
		.sampled = th->timing || contended,
		.contended = contended,
		.blind = !t_acq && nwait,
		.t_call = t_call,
		.t_acq = t_acq,
		.area = area,
		.misses = prof_misses(th),
		.stack = stack,
	};
	if (t_acq && prof_unlikely(t_acq >= st->probe_next))
		probe_start(th, st, lk);
}

/* The thread's outermost section ends (no lock held any more) at
 * @t_done (0 when the section was not timed). */
ALWAYS_INLINE void section_end(struct prof_thread *th, uint64_t t_done)
{
	uint64_t u =
		th->t_outer && t_done > th->t_outer ? t_done - th->t_outer : 0;

	th->cs_union += u;
	if (th->section_c) {
		th->sections_c++;
		th->union_c += u;
	} else {
		th->sections++;
		th->sections_timed += th->t_outer != 0;
	}
}

/* Close hold @idx of th->held, released at @t_rel by a call from @caller
 * and done at @t_done; @area is the waiter integral and @misses the cache
 * miss counter, both read at @t_rel.  A hold outside the sample only
 * counts, and gets its blame (its times are read when it has some). */
ALWAYS_INLINE void prof_released(struct prof_thread *th, int idx,
				 uint64_t t_rel, uint64_t t_done, uint64_t area,
				 uint64_t misses, uintptr_t caller, bool trace)
{
	struct prof_held h = th->held[idx];
	struct prof_stat *st = &th->stat[h.site];
	uint64_t hold = t_rel > h.t_acq ? t_rel - h.t_acq : 0;
	uint64_t blame = area > h.area ? area - h.area : 0;

	for (unsigned i = (unsigned)idx + 1; i < th->nheld; i++)
		th->held[i - 1] = th->held[i];
	th->nheld--;
	if (!h.contended)
		st->holds++;
	if (h.sampled && h.t_acq) {
		uint64_t cs = t_done > h.t_call ? t_done - h.t_call : 0;

		st->hold += hold;
		if (hold > st->hold_max)
			st->hold_max = hold;
		hist_add(st->hist_hold, hold);
		st->cs += cs;
		if (!h.contended) {
			st->timed++;
			st->hold_u += hold;
			st->cs_u += cs;
		}
		if (trace) {
			trace_ev(th, PROF_EV_HOLD, h.site, h.t_acq, t_rel);
			if (h.stack >= 0) {
				th->tstack[h.stack].hold += hold;
				th->tstack[h.stack].nholds++;
			}
		}
	}
	if (prof_unlikely(h.lk == th->probe_lk))
		probe_end(th, st);
	if (th->papi_set >= 0) {
		st->cs_misses += misses - h.misses;
		st->cs_counted++;
	}
	if (blame) {
		struct prof_blame *b = th->blame_last;

		st->blame += blame;
		if (b && b->ret == caller && b->site == h.site) {
			b->cycles += blame;
			b->count++;
		} else {
			th->blame_last =
				prof_blame_add(th->blame, PROF_BLAME_SLOTS,
					       caller, h.site, blame, 1);
		}
	}
	if (th->nheld == 0)
		section_end(th, t_done);
}

/* ---- the lean path: uncontended holds outside the sample ---------------
 *
 * With --sample N most holds are not timed.  Such a hold still counts
 * (acquisitions, holds, sections) and may still be blamed, but when no
 * thread waits for the lock while it is held its blame is zero and
 * nothing else about it is needed.  So an untimed uncontended acquisition
 * that finds no waiter records only the lock's seqlock word; at the
 * release, an unchanged word proves that no waiter came (every waiter
 * start and stop bumps it), and the release skips the integral, the
 * clock and the general bookkeeping.  Otherwise the release takes the
 * general path, which reads the clock for the blame.  An untimed exclusive
 * hold that finds waiters already registered (a preempted holder left a
 * queue) is blind: its acquisition reads no clock and its blame starts at
 * the last release's integral (blind_start()); its release reads the
 * clock ("Sampling" in docs/PROFILER.md). */

/* Push a lean hold of @lk (at @l, site @site, of @type); false when the
 * general path must be taken (a recursive hold, a full stack, counters, a
 * read hold that finds waiters). */
ALWAYS_INLINE bool lean_acquired(struct prof_thread *th, struct prof_lock *lk,
				 const void *l, int site, int type)
{
	struct prof_held *h;
	uint64_t area;
	unsigned s, n;

	if (th->nheld == PROF_HELD_MAX || th->papi_set >= 0 ||
	    held_find(th, lk) >= 0)
		return false;
	/* The seqlock read of prof_lock_area(), without the projection:
	 * with no waiter the integral does not grow. */
	/* acquire: pairs with the release ending prof_lock_wait_edge() */
	s = atomic_load_explicit(&lk->seq, memory_order_acquire);
	n = atomic_load_explicit(&lk->nwait, memory_order_relaxed);
	area = atomic_load_explicit(&lk->area, memory_order_relaxed);
	/* acquire fence: the loads above complete before the re-check
	 * (pairs with the writer's release fence) */
	atomic_thread_fence(memory_order_acquire);
	if ((s & 1) ||
	    atomic_load_explicit(&lk->seq, memory_order_relaxed) != s ||
	    (n && type == PROF_TYPE_RDLOCK))
		return false;
	stat_of(th, site)->acq++;
	if (th->nheld == 0) {
		th->section_c = false;
		th->t_outer = 0;
	}
	h = &th->held[th->nheld++];
	h->addr = (uintptr_t)l;
	h->lk = lk;
	h->site = site;
	h->depth = 0;
	h->sampled = false;
	h->contended = false;
	h->lean = true;
	/* threads wait: the hold is blind */
	h->blind = n != 0;
	h->seq = s;
	h->t_call = h->t_acq = 0;
	h->area = n ? blind_start(lk, area) : area;
	h->misses = 0;
	h->stack = -1;
	return true;
}

/* Whether lean hold @h may be closed by lean_released(): no waiter edge
 * on its lock since it was acquired. */
ALWAYS_INLINE bool lean_unchanged(const struct prof_held *h)
{
	/* acquire fence: orders this check after the hold's loads of the
	 * lock's fields at acquisition (pairs with the writers' release
	 * fence, as in the seqlock read) */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&h->lk->seq, memory_order_relaxed) ==
	       h->seq;
}

/* Close lean hold @idx after the real unlock succeeded. */
ALWAYS_INLINE void lean_released(struct prof_thread *th, int idx)
{
	struct prof_stat *st = &th->stat[th->held[idx].site];

	st->holds++;
	for (unsigned i = (unsigned)idx + 1; i < th->nheld; i++)
		th->held[i - 1] = th->held[i];
	if (--th->nheld == 0)
		section_end(th, 0);
}

/* Whether releasing the lock at @l, of @type, held by the caller, may
 * wake a thread (a futex system call) rather than be one store.  For a
 * glibc mutex the lock word says it: 1 = locked without a sleeping
 * waiter (glibc's unlock then only stores 0), 2 = a waiter may sleep;
 * a robust or priority-inheritance mutex keeps the owner's thread id
 * there, with FUTEX_WAITERS set when one sleeps, so it is not 1 then
 * either.  A waiter that goes to sleep between this read and the release
 * is missed: its wake-up is not counted in the section (a few such
 * releases per contended acquisition at most).  Other types: whenever
 * threads wait (@nwait). */
ALWAYS_INLINE bool may_wake(const void *l, int type, unsigned nwait)
{
	if (!nwait)
		return false;
#ifdef __GLIBC__
	if (type == PROF_TYPE_MUTEX)
		/* relaxed: a hint read under the lock; the waiters' stores
		 * race with it */
		return __atomic_load_n(
			       &((const pthread_mutex_t *)l)->__data.__lock,
			       __ATOMIC_RELAXED) != 1;
#else
	(void)l;
	(void)type;
#endif
	return true;
}

/* Index of the hold of the lock at @l in th->held, or -1: the unlock
 * path's lookup, without hashing (the stack is short). */
ALWAYS_INLINE int held_find_addr(struct prof_thread *th, const void *l)
{
	for (int i = (int)th->nheld - 1; i >= 0; i--)
		if (th->held[i].addr == (uintptr_t)l)
			return i;
	return -1;
}

/* The site a hold of @lk by a lock of @type is counted in. */
ALWAYS_INLINE int site_of(struct prof_lock *lk, void *l, const void *caller,
			  int type)
{
	int site = prof_lock_site(lk, l, caller,
				  type == PROF_TYPE_RDLOCK ? PROF_TYPE_WRLOCK
							   : type);

	/* relaxed: published by the acquire in prof_lock_site() */
	return type == PROF_TYPE_RDLOCK
		       ? atomic_load_explicit(&lk->rsite, memory_order_relaxed)
		       : site;
}

/* pthread_{mutex,rwlock,spin}_init's bookkeeping after a successful
 * real call: the lock's site is the caller's. */
static void init_common(void *l, enum prof_call call, int type,
			const void *caller)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	int rs = PROF_SITE_NONE, s;

	if (!(th = prof_self()))
		return;
	th->calls[call]++;
	if (!(lk = prof_lock_get(l)))
		return;
	s = prof_site_init(caller, type, &rs);
	prof_lock_retire(lk); /* re-initialised without a destroy */
	atomic_store_explicit(&lk->rsite, rs, memory_order_relaxed);
	/* release: publishes rsite; pairs with prof_lock_site()'s acquire */
	atomic_store_explicit(&lk->site, s, memory_order_release);
}

static void destroy_common(void *l, enum prof_call call)
{
	struct prof_thread *th;
	struct prof_lock *lk;

	if (!(th = prof_self()))
		return;
	th->calls[call]++;
	if ((lk = prof_lock_find(l))) {
		prof_lock_retire(lk);
		atomic_store_explicit(&lk->site, -1, memory_order_relaxed);
	}
}

PROF_API int pthread_mutex_init(pthread_mutex_t *m,
				const pthread_mutexattr_t *a)
{
	int rc;

	if (unresolved())
		return prof_boot_init(m, a);
	rc = prof_real.mutex_init(m, a);
	if (rc == 0)
		init_common(m, PC_INIT, PROF_TYPE_MUTEX, CALLER);
	else if (prof_self())
		prof_self()->calls[PC_INIT]++;
	return rc;
}

PROF_API int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int rc;

	if (unresolved())
		return prof_boot_destroy(m);
	rc = prof_real.mutex_destroy(m);
	if (rc == 0)
		destroy_common(m, PC_DESTROY);
	else if (prof_self())
		prof_self()->calls[PC_DESTROY]++;
	return rc;
}

/* The real blocking call after a failed try. */
static int lock_slow(struct prof_thread *th, struct prof_lock *lk, int site,
		     void *l, uint64_t t_call, int type, const struct how *h,
		     int stack)
{
	uint64_t t;
	int rc;

	th->waiting_on = lk;
	prof_block(+1);
	/* the wait starts at t_call: the failed try is part of it, and the
	 * edge saves a clock read */
	prof_lock_wait_edge(lk, t_call, +1);
	rc = real_lock(type, l, h);
	t = prof_now();
	prof_block(-1);
	prof_lock_wait_edge(lk, t, -1);
	th->waiting_on = NULL;
	if (prof_unlikely(prof_trace_on)) {
		trace_ev(th, PROF_EV_WAIT, site, t_call, t);
		if (stack >= 0) {
			th->tstack[stack].wait += t - t_call;
			th->tstack[stack].nwaits++;
		}
	}
	if (got_it(rc))
		prof_acquired(th, lk, site, t_call, t, true, stack);
	else if (rc == ETIMEDOUT)
		stat_of(th, site)->timed_out++;
	return rc;
}

/* Every blocking lock call of every type: the real try first; success is
 * the uncontended path, EBUSY a contended acquisition. */
ALWAYS_INLINE int lock_body(void *l, int type, const struct how *h,
			    const void *caller, bool trace)
{
	struct prof_thread *th = prof_self();
	struct prof_lock *lk;
	uint64_t t_call;
	int rc, site, stack = -1;
	bool timing;

	if (th)
		th->calls[h->call]++;
	if (!th || !(lk = prof_lock_get(l))) {
		if (th)
			th->untracked++;
		return real_lock(type, l, h);
	}
	site = site_of(lk, l, caller, type); /* before t_call: may unwind */
	timing = prof_timing(th);
	/* the stack of a timed hold, read before t_call (it unwinds) */
	if (trace && timing)
		stack = prof_trace_stack(th, site, caller);
	t_call = timing ? prof_now() : 0;
	rc = real_try(type, l);
	if (prof_likely(got_it(rc))) {
		/* Uncontended: the try took a few ns against ~20 for a
		 * TSC read on some VMs, so t_acq = t_call. */
		if (t_call || !lean_acquired(th, lk, l, site, type))
			prof_acquired(th, lk, site, t_call,
				      t_call ? t_call : untimed_acq(type),
				      false, stack);
		return rc;
	}
	if (rc == EBUSY) { /* waits are always timed, their stacks read */
		if (trace && stack < 0)
			stack = prof_trace_stack(th, site, caller);
		return lock_slow(th, lk, site, l, t_call ? t_call : prof_now(),
				 type, h, stack);
	}
	/* Another error (EINVAL, EAGAIN, EDEADLK...): let the real call
	 * decide. */
	rc = real_lock(type, l, h);
	if (got_it(rc))
		prof_acquired(th, lk, site, t_call,
			      t_call ? prof_now() : untimed_acq(type), false,
			      stack);
	return rc;
}

/* Every try call: a failure is counted, never waited for. */
ALWAYS_INLINE int try_body(void *l, int type, enum prof_call call,
			   const void *caller, bool trace)
{
	struct prof_thread *th = prof_self();
	struct prof_lock *lk;
	uint64_t t_call;
	int rc, site, stack = -1;
	bool timing;

	if (th)
		th->calls[call]++;
	if (!th || !(lk = prof_lock_get(l)))
		return real_try(type, l);
	site = site_of(lk, l, caller, type); /* before t_call: may unwind */
	timing = prof_timing(th);
	if (trace && timing)
		stack = prof_trace_stack(th, site, caller);
	t_call = timing ? prof_now() : 0;
	rc = real_try(type, l);
	if (got_it(rc)) {
		if (t_call || !lean_acquired(th, lk, l, site, type))
			prof_acquired(th, lk, site, t_call,
				      t_call ? t_call : untimed_acq(type),
				      false, stack);
	} else if (rc == EBUSY) {
		stat_of(th, site)->try_fail++;
	}
	return rc;
}

/* Every unlock: the hold is found on the thread's stack of held locks
 * (which knows an rwlock's side). */
ALWAYS_INLINE int unlock_body(void *l, int type, enum prof_call call,
			      const void *caller, bool trace)
{
	struct prof_thread *th;
	struct prof_lock *lk;
	uint64_t t_rel, area, misses;
	unsigned nwait;
	int rc, idx;
	bool wake;

	th = prof_self();
	if (!th)
		return real_unlock(type, l);
	th->calls[call]++;
	idx = held_find_addr(th, l);
	if (idx < 0) /* not locked through us, or by another thread */
		return real_unlock(type, l);
	lk = th->held[idx].lk;
	if (th->held[idx].depth) {
		th->held[idx].depth--;
		return real_unlock(type, l);
	}
	if (th->held[idx].lean && !th->held[idx].blind &&
	    lean_unchanged(&th->held[idx])) {
		rc = real_unlock(type, l);
		if (rc == 0)
			lean_released(th, idx);
		return rc;
	}
	/* A hold outside the sample that found no waiter but made threads
	 * wait needs the integral projected to now for its blame: there
	 * are waiters now (relaxed: a hint; the seqlock read below
	 * decides).  A blind hold (it found waiters) always does. */
	t_rel = th->held[idx].sampled || th->held[idx].t_acq ||
				th->held[idx].blind ||
				atomic_load_explicit(&lk->nwait,
						     memory_order_relaxed)
			? prof_now()
			: 0;
	area = prof_lock_area(lk, t_rel, &nwait);
	if (!t_rel && (nwait || area != th->held[idx].area)) {
		/* outside the sample, and waiters came and went after the
		 * hint */
		t_rel = prof_now();
		area = prof_lock_area(lk, t_rel, &nwait);
	}
	misses = prof_misses(th);
	/* t_done only serves a timed hold's cs */
	wake = th->held[idx].sampled && may_wake(l, type, nwait);
	release_mark(lk, area, nwait);
	rc = real_unlock(type, l);
	/* Without a sleeping waiter the release is a single store: t_done =
	 * t_rel saves a TSC read; with one it is a futex wake-up. */
	if (rc == 0)
		prof_released(th, idx, t_rel, wake ? prof_now() : t_rel, area,
			      misses, (uintptr_t)caller, trace);
	return rc;
}

/* The default mode's wrappers are compiled without the trace mode's
 * branches (the constant @trace folds them away): one test of the flag
 * per call selects the copy. */
ALWAYS_INLINE int lock_common(void *l, int type, const struct how *h,
			      const void *caller)
{
	if (prof_unlikely(prof_trace_on))
		return lock_body(l, type, h, caller, true);
	return lock_body(l, type, h, caller, false);
}

ALWAYS_INLINE int try_common(void *l, int type, enum prof_call call,
			     const void *caller)
{
	if (prof_unlikely(prof_trace_on))
		return try_body(l, type, call, caller, true);
	return try_body(l, type, call, caller, false);
}

ALWAYS_INLINE int unlock_common(void *l, int type, enum prof_call call,
				const void *caller)
{
	if (prof_unlikely(prof_trace_on))
		return unlock_body(l, type, call, caller, true);
	return unlock_body(l, type, call, caller, false);
}

PROF_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct how h = {PC_LOCK, CLOCK_REALTIME, NULL};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, PROF_TYPE_MUTEX, &h, CALLER);
}

/* The timed variants are not used by the loader or by dlsym, so by the
 * time they are called the real functions are known. */
PROF_API int pthread_mutex_timedlock(pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	struct how h = {PC_TIMEDLOCK, CLOCK_REALTIME, abstime};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, PROF_TYPE_MUTEX, &h, CALLER);
}

PROF_API int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
				     const struct timespec *abstime)
{
	struct how h = {PC_CLOCKLOCK, clock, abstime};

	if (unresolved())
		return prof_boot_lock(m);
	return lock_common(m, PROF_TYPE_MUTEX, &h, CALLER);
}

PROF_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
	if (unresolved())
		return prof_boot_trylock(m);
	return try_common(m, PROF_TYPE_MUTEX, PC_TRYLOCK, CALLER);
}

PROF_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (unresolved())
		return prof_boot_unlock(m);
	return unlock_common(m, PROF_TYPE_MUTEX, PC_UNLOCK, CALLER);
}

/* ---- reader-writer locks and spin locks -------------------------------
 *
 * Profiled like mutexes, an rwlock as two sites (read side, write side)
 * sharing one waiter integral.  Before prof_real is filled (a lock taken
 * while dlsym runs) they go to glibc's __pthread_rwlock_* aliases, and
 * spin locks to boot_spin_*, which follow glibc's representation (an int,
 * 0 when free). */

extern int __pthread_rwlock_init(pthread_rwlock_t *,
				 const pthread_rwlockattr_t *);
extern int __pthread_rwlock_destroy(pthread_rwlock_t *);
extern int __pthread_rwlock_rdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_tryrdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_wrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_trywrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_unlock(pthread_rwlock_t *);

/* A timed rwlock call while dlsym runs: tries until the deadline. */
static int boot_rw_timed(int (*try)(pthread_rwlock_t *), pthread_rwlock_t *l,
			 clockid_t clock, const struct timespec *abstime)
{
	struct timespec now;
	int rc;

	while ((rc = try(l)) == EBUSY) {
		if (clock_gettime(clock, &now) != 0)
			return EINVAL;
		if (now.tv_sec > abstime->tv_sec ||
		    (now.tv_sec == abstime->tv_sec &&
		     now.tv_nsec >= abstime->tv_nsec))
			return ETIMEDOUT;
		sched_yield();
	}
	return rc;
}

static int boot_spin_trylock(pthread_spinlock_t *l)
{
	/* acquire: the section starts after the lock is ours */
	return __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) ? EBUSY : 0;
}

static int boot_spin_lock(pthread_spinlock_t *l)
{
	while (boot_spin_trylock(l))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			;
	return 0;
}

static int boot_spin_unlock(pthread_spinlock_t *l)
{
	/* release: pairs with the acquire exchange above (and glibc's) */
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
	return 0;
}

PROF_API int pthread_rwlock_init(pthread_rwlock_t *l,
				 const pthread_rwlockattr_t *a)
{
	int rc;

	if (unresolved())
		return __pthread_rwlock_init(l, a);
	rc = prof_real.rw_init(l, a);
	if (rc == 0)
		init_common(l, PC_RW_INIT, PROF_TYPE_WRLOCK, CALLER);
	return rc;
}

PROF_API int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	int rc;

	if (unresolved())
		return __pthread_rwlock_destroy(l);
	rc = prof_real.rw_destroy(l);
	if (rc == 0)
		destroy_common(l, PC_RW_DESTROY);
	return rc;
}

PROF_API int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	struct how h = {PC_RDLOCK, CLOCK_REALTIME, NULL};

	if (unresolved())
		return __pthread_rwlock_rdlock(l);
	return lock_common(l, PROF_TYPE_RDLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	if (unresolved())
		return __pthread_rwlock_tryrdlock(l);
	return try_common(l, PROF_TYPE_RDLOCK, PC_TRYRDLOCK, CALLER);
}

PROF_API int pthread_rwlock_timedrdlock(pthread_rwlock_t *l,
					const struct timespec *abstime)
{
	struct how h = {PC_TIMEDRDLOCK, CLOCK_REALTIME, abstime};

	if (unresolved())
		return boot_rw_timed(__pthread_rwlock_tryrdlock, l,
				     CLOCK_REALTIME, abstime);
	return lock_common(l, PROF_TYPE_RDLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock,
					const struct timespec *abstime)
{
	struct how h = {PC_CLOCKRDLOCK, clock, abstime};

	if (unresolved())
		return boot_rw_timed(__pthread_rwlock_tryrdlock, l, clock,
				     abstime);
	return lock_common(l, PROF_TYPE_RDLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	struct how h = {PC_WRLOCK, CLOCK_REALTIME, NULL};

	if (unresolved())
		return __pthread_rwlock_wrlock(l);
	return lock_common(l, PROF_TYPE_WRLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	if (unresolved())
		return __pthread_rwlock_trywrlock(l);
	return try_common(l, PROF_TYPE_WRLOCK, PC_TRYWRLOCK, CALLER);
}

PROF_API int pthread_rwlock_timedwrlock(pthread_rwlock_t *l,
					const struct timespec *abstime)
{
	struct how h = {PC_TIMEDWRLOCK, CLOCK_REALTIME, abstime};

	if (unresolved())
		return boot_rw_timed(__pthread_rwlock_trywrlock, l,
				     CLOCK_REALTIME, abstime);
	return lock_common(l, PROF_TYPE_WRLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock,
					const struct timespec *abstime)
{
	struct how h = {PC_CLOCKWRLOCK, clock, abstime};

	if (unresolved())
		return boot_rw_timed(__pthread_rwlock_trywrlock, l, clock,
				     abstime);
	return lock_common(l, PROF_TYPE_WRLOCK, &h, CALLER);
}

PROF_API int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	if (unresolved())
		return __pthread_rwlock_unlock(l);
	/* the side does not matter to the real call: the write side's */
	return unlock_common(l, PROF_TYPE_WRLOCK, PC_RW_UNLOCK, CALLER);
}

PROF_API int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	int rc;

	if (unresolved()) {
		*l = 0;
		return 0;
	}
	rc = prof_real.spin_init(l, pshared);
	if (rc == 0)
		init_common((void *)l, PC_SPIN_INIT, PROF_TYPE_SPIN, CALLER);
	return rc;
}

PROF_API int pthread_spin_destroy(pthread_spinlock_t *l)
{
	int rc;

	if (unresolved())
		return 0;
	rc = prof_real.spin_destroy(l);
	if (rc == 0)
		destroy_common((void *)l, PC_SPIN_DESTROY);
	return rc;
}

PROF_API int pthread_spin_lock(pthread_spinlock_t *l)
{
	struct how h = {PC_SPIN_LOCK, CLOCK_REALTIME, NULL};

	if (unresolved())
		return boot_spin_lock(l);
	return lock_common((void *)l, PROF_TYPE_SPIN, &h, CALLER);
}

PROF_API int pthread_spin_trylock(pthread_spinlock_t *l)
{
	if (unresolved())
		return boot_spin_trylock(l);
	return try_common((void *)l, PROF_TYPE_SPIN, PC_SPIN_TRYLOCK, CALLER);
}

PROF_API int pthread_spin_unlock(pthread_spinlock_t *l)
{
	if (unresolved())
		return boot_spin_unlock(l);
	return unlock_common((void *)l, PROF_TYPE_SPIN, PC_SPIN_UNLOCK, CALLER);
}

/* ---- condition variables ---------------------------------------------- */

static int cond_common(pthread_cond_t *c, pthread_mutex_t *m,
		       const struct how *h, const void *caller)
{
	struct prof_thread *th = prof_self();
	struct prof_lock *lk;
	struct prof_held saved = {0};
	uint64_t t0, t1;
	int rc, idx;

	if (!th)
		return real_wait(c, m, h);
	t0 = prof_now();
	th->calls[h->call]++;
	th->cond_waits++;
	lk = prof_lock_find(m);
	idx = lk ? held_find(th, lk) : -1;
	if (idx >= 0) {
		unsigned nwait;
		uint64_t area = prof_lock_area(lk, t0, &nwait);

		saved = th->held[idx];
		release_mark(lk, area, nwait);
		prof_released(th, idx, t0, t0, area, prof_misses(th),
			      (uintptr_t)caller, prof_trace_on);
	}
	prof_block(+1);
	rc = real_wait(c, m, h);
	prof_block(-1);
	t1 = prof_now();
	if (prof_unlikely(prof_trace_on))
		trace_ev(th, PROF_EV_COND, idx >= 0 ? saved.site : -1, t0, t1);
	if (idx >= 0) {
		stat_of(th, saved.site)->cond_wait += t1 - t0;
		(void)prof_timing(th);
		prof_acquired(th, lk, saved.site, t1, t1, false, saved.stack);
		idx = held_find(th, lk);
		if (idx >= 0)
			th->held[idx].depth = saved.depth;
	}
	return rc;
}

PROF_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct how h = {PC_COND_WAIT, CLOCK_REALTIME, NULL};

	if (!prof_real.cond_wait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				    const struct timespec *abstime)
{
	struct how h = {PC_COND_TIMEDWAIT, CLOCK_REALTIME, abstime};

	if (!prof_real.cond_timedwait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				    clockid_t clock,
				    const struct timespec *abstime)
{
	struct how h = {PC_COND_CLOCKWAIT, clock, abstime};

	if (!prof_real.cond_clockwait)
		prof_resolve();
	return cond_common(c, m, &h, CALLER);
}

PROF_API int pthread_cond_signal(pthread_cond_t *c)
{
	struct prof_thread *th;

	if (!prof_real.cond_signal)
		prof_resolve();
	if ((th = prof_self())) {
		th->calls[PC_COND_SIGNAL]++;
		th->signals++;
	}
	return prof_real.cond_signal(c);
}

PROF_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	struct prof_thread *th;

	if (!prof_real.cond_broadcast)
		prof_resolve();
	if ((th = prof_self())) {
		th->calls[PC_COND_BROADCAST]++;
		th->broadcasts++;
	}
	return prof_real.cond_broadcast(c);
}

/* ---- threads ---------------------------------------------------------- */

struct trampoline {
	void *(*fn)(void *);
	void *arg;
	unsigned long index;
};

/* pthread_create calls so far (creation indices, from 1).  relaxed: only
 * the numbering matters, as in rcl-run's own wrapper (pti_create.c). */
static _Atomic unsigned long created;

static void *thread_start(void *p)
{
	struct trampoline t = *(struct trampoline *)p;
	void *ret;

	free(p);
	prof_thread_index = t.index;
	(void)prof_self(); /* lifetime starts now */
	ret = t.fn(t.arg);
	prof_thread_exit();
	return ret;
}

PROF_API int pthread_create(pthread_t *t, const pthread_attr_t *a,
			    void *(*fn)(void *), void *arg)
{
	struct prof_thread *th;
	struct trampoline *tr;
	unsigned long index =
		atomic_fetch_add_explicit(&created, 1, memory_order_relaxed) +
		1;
	int rc;

	if (!prof_real.create)
		prof_resolve();
	if ((th = prof_self()))
		th->calls[PC_CREATE]++;
	if (!atomic_load_explicit(&prof_on, memory_order_relaxed) ||
	    !(tr = malloc(sizeof(*tr))))
		return prof_real.create(t, a, fn, arg);
	tr->fn = fn;
	tr->arg = arg;
	tr->index = index;
	rc = prof_real.create(t, a, thread_start, tr);
	if (rc != 0)
		free(tr);
	return rc;
}

PROF_API int pthread_join(pthread_t t, void **ret)
{
	struct prof_thread *th;
	uint64_t t0 = prof_now();
	int rc;

	if (!prof_real.join)
		prof_resolve();
	th = prof_self();
	if (th)
		prof_block(+1);
	rc = prof_real.join(t, ret);
	if (th) {
		uint64_t t1 = prof_now();

		prof_block(-1);
		th->calls[PC_JOIN]++;
		th->t_join += t1 - t0;
		if (prof_unlikely(prof_trace_on))
			trace_ev(th, PROF_EV_JOIN, -1, t0, t1);
	}
	return rc;
}

PROF_API void pthread_exit(void *ret)
{
	struct prof_thread *th;

	if (!prof_real.exit)
		prof_resolve();
	if ((th = prof_self()))
		th->calls[PC_EXIT]++;
	prof_thread_exit();
	prof_real.exit(ret);
}
