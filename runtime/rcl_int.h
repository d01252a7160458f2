/* SPDX-License-Identifier: MIT */
/*
 * RCL runtime internals (Lozi et al., "Remote Core Locking", USENIX ATC'12;
 * J.-P. Lozi's PhD thesis, ch. 4).  See docs/RUNTIME.md for the design.
 *
 * A server is a CPU plus a request array (one line per client id) and a
 * pool of servicing threads bound to that CPU, a manager and (with
 * SCHED_FIFO) a backup thread.  Locks are small structures whose lock word
 * is only taken by threads that execute sections of that lock.
 *
 * Memory model: C11 atomics only, no TSO reliance.  The thesis's "local"
 * (LOCK-prefix-free) atomics become ordinary C11 atomics: they are
 * uncontended and core-local, and stay sound if a thread migrates.
 */
#ifndef RCL_INT_H
#define RCL_INT_H

#include "ll_int.h"
#include "ll_wait.h"
#include "rcl.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <string.h>
#include <sys/types.h>

/* Client ids, hence slots per request array: 4096 lines, the thesis's
 * "very large" array (256 KB of 64-byte lines; 512 KB with 128-byte
 * padding).  More live client threads than this wait for a free id. */
#define RCL_MAX_CLIENTS 4096u

/* Manager period.  The thesis uses "the OS timeslice", the original code
 * 50 ms.  Linux has no fixed timeslice (CFS targets a few ms); we take
 * 10 ms: a section that spins or blocks delays the other locks of its
 * server by at most about two periods, and 100 wake-ups per second cost
 * well under 0.1% of the server CPU.  While its server is idle the
 * manager sleeps, waking at most once a second (RCL_GONE_*). */
#define RCL_MANAGER_PERIOD_NS 10000000L

/* A servicing thread that found no request for this long parks on a
 * futex; the next client wakes it.  Bounds the time an idle server
 * spins at real-time priority (and keeps RT throttling out of idle
 * phases) while costing a busy server nothing. */
#define RCL_IDLE_PARK_NS 5000000L

/* A forked child whose server start is deferred (server.c) looks whether
 * the process it deferred to is gone every this many calls of a thread
 * on the stopped path: one getppid() per 4,096 sections run locally. */
#define RCL_DEFER_POLL 4096u

/* An idle servicing thread starts yielding its CPU (to servers of other
 * processes on the same CPU) after this long without a request. */
#define RCL_IDLE_YIELD_NS 50000L

/* An idle manager looks whether the program's threads are all gone
 * (rcl_exit_if_program_gone) after this long, then after twice as long,
 * up to RCL_GONE_MAX_NS between two looks: a program whose main() ends
 * in pthread_exit() ends within about 10 ms of its last thread, and an
 * idle server that lives on costs one look a second. */
#define RCL_GONE_FIRST_NS 10000000L
#define RCL_GONE_MAX_NS 1000000000L

/* Hard cap on the pool (threads blocked in sections plus free ones). */
#define RCL_MAX_THREADS 1024u

struct rcl_server;
struct rcl_sthread;

/*
 * An RCL lock.  Its lock word @holder is taken by whoever runs one of its
 * sections: a servicing thread running a delegated section, or a thread
 * that called liblock_lock/trylock on it ("held" sections, word.c).
 *
 *   bits 63..2  owner: 0 free, RCL_W_HANDOFF (reserved for a servicing
 *               thread of the lock's server), RCL_W_ORPHAN (its holder
 *               exited holding it: nobody owns it, word.c), else the
 *               owner's token
 *               (rcl_token(): 8-byte aligned, never 4 or 8);
 *   bit 1       RCL_W_SRV_WANT: a servicing thread left a request of this
 *               lock pending because the word was busy or wanted; the
 *               releaser turns the word into RCL_W_HANDOFF instead of 0;
 *   bit 0       RCL_W_SLEEPERS: a thread may be parked on the word (the
 *               futex is the word's low 32 bits); the releaser wakes one.
 *
 * @waiting counts threads in word.c's blocking acquire.  A servicing
 * thread does not take a free word while it is non-zero (it sets
 * SRV_WANT and serves the lock's request after the next release), and a
 * blocking acquire never takes RCL_W_HANDOFF: the two kinds alternate
 * when both want the lock, so neither starves (docs/RUNTIME.md).
 *
 * A servicing thread keeps the word of the lock it served last, from one
 * sweep to the next, as long as nobody else wants it (@waiting is 0, no
 * flag is set): a lock used only through liblock_exec then costs no
 * atomic read-modify-write per request, as in the original RCL, whose
 * server owned its locks outright.  @kept says the word is held that way,
 * between sections; a thread that wants it counts itself in @waiting and
 * the keeper lets go at the end of its sweep, or before it sleeps
 * (servicing.c); trylock and destroy wait for that instead of reporting
 * the lock busy (word.c, client.c).
 *
 * Layout: @server is read by every client call, @holder written by the
 * server on every request; they live on two lines, so a call does not
 * pull the lock line away from the server.  Lock structures are never
 * freed, only recycled (client.c): a servicing thread preempted between
 * reading a slot and taking its lock may still touch a destroyed lock's
 * word, which must stay valid memory.
 */
struct rcl_lock {
	/* read-mostly */
	struct rcl_server *server;
	struct rcl_lock *next_free; /* recycling list (client.c) */
	/* the lock word's line */
	_Atomic uintptr_t holder LL_ALIGNED;
	_Atomic uint32_t waiting; /* threads in a blocking acquire */
	/* 1 while a servicing thread keeps the word between two sections
	 * (servicing.c): whoever finds the word taken and this set waits
	 * for it to be let go instead of taking the lock for busy */
	_Atomic uint32_t kept;
} LL_ALIGNED;

static_assert(sizeof(struct rcl_lock) == 2 * LL_CACHELINE,
	      "read-mostly line + lock word line");
static_assert(offsetof(struct rcl_lock, holder) == LL_CACHELINE,
	      "the lock word starts its own line");

enum {
	RCL_W_SLEEPERS = 1u,
	RCL_W_SRV_WANT = 2u,
	RCL_W_FLAGS = 3u,
	RCL_W_HANDOFF = 4u,
	RCL_W_ORPHAN = 8u,
};

/* The owner part of lock word value @w. */
static inline uintptr_t rcl_w_owner(uintptr_t w)
{
	return w & ~(uintptr_t)RCL_W_FLAGS;
}

/* A request's kind, in bit 0 of its slot's lock word (struct rcl_lock is
 * line-aligned, so the low bits of its address are free). */
enum { RCL_REQ_TRY = 1u };
static_assert(_Alignof(struct rcl_lock) > RCL_REQ_TRY, "a free tag bit");

/* The lock of slot lock word @lk. */
static inline struct rcl_lock *rcl_req_lock(uintptr_t lk)
{
	return (struct rcl_lock *)(lk & ~(uintptr_t)RCL_REQ_TRY);
}

/* Is slot lock word @lk a try request's (rcl_tryexec)? */
static inline bool rcl_req_try(uintptr_t lk)
{
	return (lk & RCL_REQ_TRY) != 0;
}

/*
 * One request slot: written by its client and by the server's threads
 * only, one cache line, on the server's NUMA node.  Protocol (thesis
 * Alg. 9/10 with C11 orderings):
 *   client: lock (the lock's address, tagged RCL_REQ_TRY for a try
 *           request), ctx relaxed; fn with release; wait fn == NULL
 *           (acquire); result in ctx, status in status.
 *   server: fn (acquire); take lock->holder (acquire); re-read fn
 *           (acquire) and lock: a request for the lock we hold is
 *           pending; ctx = fn(ctx); fn = NULL (release); release
 *           lock->holder (release).
 * The thesis's slot-claiming race (Alg. 10, §2.4: two servicing threads
 * of one server executing one request, or one executing a newer request
 * for another lock) is closed by the lock word and, where the word is
 * not enough, by the slot's claim word (rcl_claim):
 *   - a request for lock l is only ever started by the holder of l's
 *     word, which re-validates the slot after taking the word: the
 *     previous holder completed its request (fn = NULL) before
 *     releasing the word, so the acquire that takes it sees that
 *     completion or a newer request, and a slot that now names another
 *     lock is left alone;
 *   - a section that releases the word before it completes (a condition
 *     wait) claims its slot first and keeps the claim until completion,
 *     and a request whose claim is taken is not started: the claim says
 *     "in progress";
 *   - a try request may be completed without its word (refused with
 *     EBUSY): refusers and executors of try requests both claim it, and
 *     keep the claim until the reply is out (rcl_complete()), so a try
 *     request a thread has claimed and validated stays that request
 *     until that thread completes or unclaims it;
 *   - a slot is validated on its tagged lock word (rcl_pending_for), so
 *     the kind a thread acts on is the kind of the request it validated:
 *     a thread that claimed a plain request, which the word's holder may
 *     then complete, never takes the client's next request, a try, for
 *     the plain one it was looking at (nor the other way round).  A
 *     separate flags field read after validation allowed that, and a
 *     plain request was refused with EBUSY: liblock_exec returned
 *     without running its section.
 * So the common case, a section that runs to its end, costs no claim.
 * The claim words live in the server's own array (rcl_claim_word), not
 * in the slot: a CAS on the client's line would take it away from the
 * spinning client in mid-request and cost the call an extra transfer.
 */
struct rcl_req {
	_Atomic uintptr_t lock;	  /* struct rcl_lock * | RCL_REQ_TRY */
	_Atomic(void *) ctx;	  /* single-word context in, result out */
	_Atomic(liblock_fn_t) fn; /* NULL: no request; published last */
	_Atomic uint32_t status;  /* 0 executed, EBUSY (try request) */
} LL_ALIGNED;

static_assert(sizeof(struct rcl_req) == LL_CACHELINE, "one line per client");

/* A single-writer counter (relaxed load + store).  RCL_COUNT_* always
 * count: the manager's rare events (threads created and reactivated,
 * wake-ups, elections), which tests and rcl_stats() rely on.  RCL_STAT_*
 * are the statistics of the servicing threads' sweep and of the client
 * (sections, sweeps, parks, refusals): built with --disable-lock-stats
 * (RCL_LOCK_STATS 0) they compile to nothing and read 0. */
typedef _Atomic uint64_t rcl_counter_t;
#define RCL_COUNT_ADD(c, n)                                                    \
	atomic_store_explicit(                                                 \
		&(c), atomic_load_explicit(&(c), memory_order_relaxed) + (n),  \
		memory_order_relaxed)
#define RCL_COUNT_INC(c) RCL_COUNT_ADD(c, 1)
#if RCL_LOCK_STATS
#define RCL_STAT_ADD(c, n) RCL_COUNT_ADD(c, n)
#else
#define RCL_STAT_ADD(c, n) ((void)sizeof(c), (void)sizeof(n))
#endif
#define RCL_STAT_INC(c) RCL_STAT_ADD(c, 1)
#define RCL_STAT_GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

/* Per-servicing-thread counters, written by that thread only. */
struct rcl_tstats {
	rcl_counter_t sweeps, active_sweeps, scanned_active, cs, cs_inline,
		multi_lock, slow_path, idle_parks, try_busy, deferred;
	rcl_counter_t shipped; /* shipped sections run (always counted) */
};

/* is_servicing values (the futex word of a prepared thread). */
enum { RCL_PREPARED = 0, RCL_SERVICING = 1, RCL_EXIT = 2 };

struct rcl_sthread {
	struct rcl_server *srv;
	pthread_t thread;
	_Atomic uint32_t is_servicing; /* futex word, RCL_PREPARED/... */
	_Atomic uint32_t in_sweep;     /* 1 while inside a sweep (rcl_nfree) */
	_Atomic uint32_t timestamp;    /* last election cycle seen */
	_Atomic int tid;	       /* kernel tid, 0 until started */
	_Atomic uint32_t linked;       /* futex word: 1 once on the all list */
	struct rcl_sthread *next_all;  /* manager-owned list */
	struct rcl_sthread *next_prepared;
	/* the request whose delegated section runs, NULL between them;
	 * read by this thread only: a condition wait claims it, the report
	 * of a section that never returns names its lock (servicing.c) */
	struct rcl_req *req;
	/* the lock whose word this thread holds for its delegated sections,
	 * kept from one sweep to the next while nobody else wants it
	 * (servicing.c); written by this thread only, read by the fork
	 * child handler */
	_Atomic(struct rcl_lock *) kept;
	/* 1 while a delegated section this thread runs sleeps in a
	 * condition wait (client.c); written by this thread, read by the
	 * thread stopping the server at exit (server.c): a hint only */
	_Atomic uint32_t in_cond;
	struct rcl_tstats st;
} LL_ALIGNED;

/* Server life cycle. */
enum { RCL_STOPPED = 0, RCL_RUNNING = 1, RCL_STOPPING = 2 };

struct rcl_server {
	/* read-mostly */
	int cpu;
	int node;
	bool fifo;		/* SCHED_FIFO pool, manager and backup */
	_Atomic bool exclusive; /* CPU removed from application threads;
				 * clients read it (relaxed) while waiting */
	struct rcl_req *reqs;
	/* claim word of each slot: the claiming thread's token, 0 none;
	 * written by the server's threads (and by a client completing its
	 * own request on a stopped server), never by a waiting client */
	_Atomic uintptr_t *claims;
	pthread_t manager, backup;
	bool has_backup;
	_Atomic int state; /* RCL_STOPPED/RUNNING/STOPPING */

	/* written by the threads bound to the server CPU */
	_Atomic int is_alive LL_ALIGNED;
	_Atomic uint32_t nservicing; /* threads in the pool (not prepared) */
	_Atomic uint32_t timestamp;  /* election cycle */
	_Atomic(struct rcl_sthread *) prepared; /* Treiber stack, 1 popper */

	/* futex words: idle (1 while the free thread is parked for lack of
	 * requests; clients read it on every call, so it has its own line)
	 * and the manager's wake-up word */
	_Atomic uint32_t idle LL_ALIGNED;
	_Atomic uint32_t mgr_word LL_ALIGNED;
	_Atomic uint32_t mgr_need; /* a thread asked for a free thread */

	/* manager-owned: the list grows at the head (release), is read by
	 * rcl_stats() under the server table mutex, freed only by stop */
	_Atomic(struct rcl_sthread *) all LL_ALIGNED;
	_Atomic unsigned int nthreads;
	sem_t started; /* the manager posts it once start-up is done */
	int start_rc;  /* its result */
	rcl_counter_t wakeups, alive_misses, elections, created, reactivated;
	_Atomic uint64_t cond_waits, nlocks;
	struct rcl_tstats retired; /* counters of joined threads */
	/* thread structures of the parent's pool in a forked child (the
	 * threads do not exist there); freed by the next start */
	struct rcl_sthread *orphans;
	/* in a forked child: the process (the parent, or an ancestor) whose
	 * SCHED_FIFO server ran on this CPU at the fork, 0 none.  While it
	 * lives, new locks do not start this server (server.c, deferral).
	 * Written under srv_mu (or in the child's fork handler); clients
	 * read it relaxed on their stopped path. */
	_Atomic pid_t fifo_owner;
	/* kernel tids of the manager and the backup, 0 until they run (see
	 * rcl_exit_if_program_gone()) */
	_Atomic int mgr_tid, bak_tid;
};

/* ---- slot.c: the slot protocol -------------------------------------------
 * The steps that clients (client.c) and servicing threads (servicing.c)
 * both take on lock words, claim words and request slots (the protocol
 * above).  The steps on a servicing thread's fast path are inline here;
 * the rest is in slot.c. */

/* The servicing thread running on this thread, or NULL. */
extern __thread struct rcl_sthread *rcl_self LL_HIDDEN LL_TLS_FAST;
/* This thread's token for lock words and slot claims: liblock's per-thread
 * token (ll_wait.h), 8-byte aligned. */
static inline uintptr_t rcl_token(void)
{
	return ll_self();
}

/* ---- word.c: the lock word ------------------------------------------------
 */
/* Record @l among the locks this thread holds in place (its word about to
 * become ours by rcl_word_pass()); fatal without memory for the record. */
void rcl_word_note_held(struct rcl_lock *l) LL_HIDDEN;
/* Hand the word of @l, held by @from, to @to, with its flags. */
void rcl_word_pass(struct rcl_lock *l, uintptr_t from, uintptr_t to) LL_HIDDEN;
/* Release @l after a delegated section, its word @w having flags: free
 * it (dropping RCL_W_SRV_WANT) and wake a sleeper. */
void rcl_word_release_slow(struct rcl_lock *l, uintptr_t w) LL_HIDDEN;
/* A servicing thread holding the claim of the request in @r, slot lock
 * word @lk: take its lock's word for @me, or make sure the next release
 * of a held section hands it over while that request is pending
 * (false). */
bool rcl_word_serve(struct rcl_req *r, uintptr_t lk, uintptr_t me) LL_HIDDEN;
/* One attempt to take @l for @me; @server: RCL_W_HANDOFF may be taken. */
bool rcl_word_try(struct rcl_lock *l, uintptr_t me, bool server) LL_HIDDEN;
/* rcl_word_try() for a held section or an inline try: when the word is
 * only kept by a servicing thread between sections (the lock is free),
 * wait for it to be let go instead of failing. */
bool rcl_word_try_kept(struct rcl_lock *l, uintptr_t me) LL_HIDDEN;
/* If a servicing thread keeps the word of @l between sections, make it
 * let go and wait until it has; with @me non-zero, take the word for @me
 * then (true).  Returns at once, false, when the word is not kept, and
 * false when a section holds it meanwhile. */
bool rcl_word_wait_kept(struct rcl_lock *l, uintptr_t me) LL_HIDDEN;
/* Take @l for @me, waiting as long as it takes (@server: yield instead of
 * parking, and take RCL_W_HANDOFF: a client running its own request). */
void rcl_word_acquire(struct rcl_lock *l, uintptr_t me, bool server) LL_HIDDEN;
/* Release @l, held by @me in a held section: free, or handed over to
 * the server when a delegated request waits for it. */
void rcl_word_release_held(struct rcl_lock *l, uintptr_t me) LL_HIDDEN;
/* liblock_lock/trylock/unlock on an RCL lock (held sections). */
int rcl_word_lock(struct rcl_lock *l) LL_HIDDEN;
int rcl_word_trylock(struct rcl_lock *l) LL_HIDDEN;
/* rcl_word_trylock() that also reports a word kept by a servicing thread
 * between sections busy, at once (shipping sends the section there). */
int rcl_word_trylock_now(struct rcl_lock *l) LL_HIDDEN;
int rcl_word_unlock(struct rcl_lock *l) LL_HIDDEN;
/* A fork child whose only thread runs a section of @l that a servicing
 * thread of the parent held: make it a held section of this thread. */
void rcl_word_adopt(struct rcl_lock *l) LL_HIDDEN;
/* Does the calling thread hold @l in a held section? */
bool rcl_word_held_by_me(struct rcl_lock *l) LL_HIDDEN;

/* Fast path of a servicing thread taking @l for a delegated section: a
 * free word nobody else waits for, (0) -> (me).  Anything else is
 * rcl_word_serve()'s (word.c). */
static inline bool rcl_lock_try(struct rcl_lock *l, uintptr_t me)
{
	uintptr_t free_word = 0;

	if (atomic_load_explicit(&l->holder, memory_order_relaxed) != 0 ||
	    atomic_load_explicit(&l->waiting, memory_order_relaxed) != 0)
		return false;
	/* acquire: pairs with the release in rcl_lock_release(), so the
	 * previous section's writes are visible to ours */
	return atomic_compare_exchange_strong_explicit(&l->holder, &free_word,
						       me, memory_order_acquire,
						       memory_order_relaxed);
}

/* Release @l, held by @me for a delegated section (a servicing thread,
 * or a client running its own request): (me) -> (0) on the fast path; a
 * word with flags goes to rcl_word_release_slow(), which clears
 * RCL_W_SRV_WANT (the server just had its turn) and wakes a sleeper.
 * Held sections release with rcl_word_unlock(), which hands over. */
static inline void rcl_lock_release(struct rcl_lock *l, uintptr_t me)
{
	uintptr_t w = me;

	/* release: the section's writes happen before the next holder's */
	if (!atomic_compare_exchange_strong_explicit(&l->holder, &w, 0,
						     memory_order_release,
						     memory_order_relaxed))
		rcl_word_release_slow(l, w);
}

/* The claim word of request slot @r of @s. */
static inline _Atomic uintptr_t *rcl_claim_word(struct rcl_server *s,
						const struct rcl_req *r)
{
	return &s->claims[r - s->reqs];
}

/* Give up a claim without completing the request. */
static inline void rcl_unclaim(struct rcl_server *s, struct rcl_req *r)
{
	/* release: pairs with the next claim CAS (acquire) */
	atomic_store_explicit(rcl_claim_word(s, r), 0, memory_order_release);
}

/* Does @r hold a request with slot lock word @lk (its lock and kind)?
 * The acquire pairs with the client's release of fn: lock and ctx were
 * written before it. */
static inline bool rcl_pending_for(struct rcl_req *r, uintptr_t lk)
{
	return atomic_load_explicit(&r->fn, memory_order_acquire) != NULL &&
	       atomic_load_explicit(&r->lock, memory_order_relaxed) == lk;
}

/* Claim @r for @me, then check it still holds a request with slot lock
 * word @lk.  A claimed try request cannot change (only a claim holder
 * completes it, and the client posts the next one only after
 * completion); a claimed plain request may be completed by the holder of
 * its lock's word, which is why the word is re-validated after it is
 * taken. */
static inline bool rcl_claim(struct rcl_server *s, struct rcl_req *r,
			     uintptr_t lk, uintptr_t me)
{
	uintptr_t none = 0;

	/* acquire: pairs with the release of the claim in rcl_complete() */
	if (!atomic_compare_exchange_strong_explicit(
		    rcl_claim_word(s, r), &none, me, memory_order_acquire,
		    memory_order_relaxed))
		return false;
	if (rcl_pending_for(r, lk))
		return true;
	rcl_unclaim(s, r);
	return false;
}

/* Hand the slot (result and status) back to its client. */
static inline void rcl_reply(struct rcl_req *r, uint32_t status)
{
	atomic_store_explicit(&r->status, status, memory_order_relaxed);
	/* release: pairs with the client's acquire wait; the section's
	 * writes and the result are visible once it sees NULL */
	atomic_store_explicit(&r->fn, NULL, memory_order_release);
}

/* Complete the claimed request @r with @status: reply, then drop the
 * claim.  In that order: a thread that claimed the slot between the two
 * would validate a request already answered, and its refusal (EBUSY)
 * would land on the client's next request. */
static inline void rcl_complete(struct rcl_server *s, struct rcl_req *r,
				uint32_t status)
{
	rcl_reply(r, status);
	/* release: pairs with the claim CAS (acquire) of the next owner,
	 * which then sees the reply (fn NULL) or a newer request */
	atomic_store_explicit(rcl_claim_word(s, r), 0, memory_order_release);
}

/* Is request @r of @s free to start (not claimed: not in progress)?
 * Called by a holder of the request's word: a claim taken before the
 * word was released is visible through the word's acquire. */
static inline bool rcl_unclaimed(struct rcl_server *s, const struct rcl_req *r)
{
	return atomic_load_explicit(rcl_claim_word(s, r),
				    memory_order_relaxed) == 0;
}

/* Execute the request in @r of @s, validated by the caller @me, which
 * holds the request's lock word: ctx = fn(ctx), then complete it, with
 * the claim if the caller or the section (a condition wait) took it.
 * @keep: the lock whose word the caller keeps after the section (a
 * servicing thread, see servicing.c), or NULL. */
static inline void rcl_run(struct rcl_server *s, struct rcl_req *r,
			   uintptr_t me, struct rcl_lock *keep)
{
	liblock_fn_t f = atomic_load_explicit(&r->fn, memory_order_relaxed);
	void *ctx = atomic_load_explicit(&r->ctx, memory_order_relaxed);

	ctx = f(ctx);
	/* The section is over: kept from here on, before the client hears
	 * of it (the reply's release orders this store before it), so the
	 * client's trylock right after its own call does not find the lock
	 * busy.  release: the section's stores come before, for the fork
	 * child handler (server.c).  Unless the word is not ours any more:
	 * a shipped section that went home holding it (ship.c). */
	if (keep &&
	    ll_likely(rcl_w_owner(atomic_load_explicit(
			      &keep->holder, memory_order_relaxed)) == me))
		atomic_store_explicit(&keep->kept, 1, memory_order_release);
	atomic_store_explicit(&r->ctx, ctx, memory_order_relaxed);
	if (atomic_load_explicit(rcl_claim_word(s, r), memory_order_relaxed) ==
	    me)
		rcl_complete(s, r, 0);
	else
		rcl_reply(r, 0);
}

/* Claim @r for @me, waiting while another thread holds the claim for a
 * moment (a deferral's check); a no-op if @me holds it already.  Used by
 * a section about to release its word before completing. */
void rcl_claim_in_progress(struct rcl_server *s, struct rcl_req *r,
			   uintptr_t me) LL_HIDDEN;

/* A client whose server is stopped runs its own request @r for @l, as a
 * servicing thread would (unless a servicing thread is at it: false).
 * Returns true when the request is complete. */
bool rcl_run_own(struct rcl_server *s, struct rcl_req *r,
		 struct rcl_lock *l) LL_HIDDEN;
/* Wake the servicing thread parked for lack of requests (and the
 * manager and backup, which sleep on the same word), if it is parked. */
void rcl_server_unpark(struct rcl_server *srv) LL_HIDDEN;

/* ---- ids.c: client ids ----------------------------------------------------
 */
/* This thread's client id plus one, 0 until it has one (ids.c). */
extern __thread uint32_t rcl_my_id_plus1 LL_HIDDEN LL_TLS_FAST;
/* rcl_client_id() for a thread without an id yet: allocate one. */
uint32_t rcl_client_id_alloc(void) LL_HIDDEN;
/* The calling thread's client id (allocated on first use, freed when the
 * thread exits); RCL_MAX_CLIENTS if none can be had (never for long).
 * Inline: it is on every remote call's path. */
static inline uint32_t rcl_client_id(void)
{
	if (ll_likely(rcl_my_id_plus1 != 0))
		return rcl_my_id_plus1 - 1;
	return rcl_client_id_alloc();
}
/* One past the highest live id: the part of a request array to scan. */
extern _Atomic uint32_t rcl_ids_limit_word LL_HIDDEN;
static inline uint32_t rcl_ids_limit(void)
{
	return atomic_load_explicit(&rcl_ids_limit_word, memory_order_relaxed);
}
uint32_t rcl_ids_live(void) LL_HIDDEN;

/* ---- affinity.c ------------------------------------------------------------
 */
/* Can @cpu be reserved and still leave the application a CPU? */
bool rcl_affinity_can_reserve(int cpu) LL_HIDDEN;
/* Record a server on @cpu; if @exclusive, remove @cpu from every thread
 * of the process but the runtime's own (threads pinned to one server
 * CPU).  Returns 0 or an errno. */
int rcl_affinity_reserve(int cpu, bool exclusive) LL_HIDDEN;
/* The server on @cpu stopped: give @cpu back to the application threads
 * if it was reserved. */
void rcl_affinity_release(int cpu) LL_HIDDEN;

/* ---- env.c ------------------------------------------------------------------
 */
/* Switch to degraded mode (once per process, with a message). */
void rcl_announce_degraded(const char *why) LL_HIDDEN;

/* ---- server.c --------------------------------------------------------------
 */
/* The server on @cpu (LIBLOCK_SERVER_DEFAULT: the default one), started
 * if needed; NULL with *@err set on failure. */
struct rcl_server *rcl_server_get(int cpu, int *err) LL_HIDDEN;
/* A forked child's client on the stopped path of @s, whose start was
 * deferred to an ancestor's server: start it once that process is gone
 * (looked at every RCL_DEFER_POLL calls of this thread). */
void rcl_server_retry_deferred(struct rcl_server *s) LL_HIDDEN;
/* The server table's mutex: held across start, stop and fork, and by
 * readers of a server's thread list (rcl_stats()). */
void rcl_servers_lock(void) LL_HIDDEN;
void rcl_servers_unlock(void) LL_HIDDEN;
/* The server on @cpu if one was ever created there, else NULL. */
struct rcl_server *rcl_server_lookup(int cpu) LL_HIDDEN;
/* The runtime threads' roles; each is also its SCHED_FIFO priority
 * above the minimum (the manager preempts the servicing threads, which
 * preempt the backup). */
enum { RCL_PRIO_BACKUP = 1, RCL_PRIO_SERVICING = 2, RCL_PRIO_MANAGER = 3 };

/* Start a thread of @srv bound to its CPU, in role @prio_off (an
 * RCL_PRIO_*: its priority above the FIFO minimum, ignored without FIFO),
 * named after it ("rcl-svc/CPU", "rcl-mgr/CPU", "rcl-bak/CPU": what top
 * -H, ps -L, perf and gdb show). */
int rcl_thread_start(struct rcl_server *srv, pthread_t *t, void *(*fn)(void *),
		     void *arg, int prio_off) LL_HIDDEN;

/* ---- servicing.c -----------------------------------------------------------
 */
void *rcl_servicing_main(void *arg) LL_HIDDEN;

/* ---- manager.c -------------------------------------------------------------
 */
void *rcl_manager_main(void *arg) LL_HIDDEN;
/* Called by idle managers.  If every live thread of the process is one
 * of the runtime's, the program's last thread has ended (main() ended in
 * pthread_exit() and the threads it started are gone): without our
 * threads glibc would have called exit(0) in that last thread, so a
 * thread of ours does it now, once.  Returns whether it did. */
bool rcl_exit_if_program_gone(void) LL_HIDDEN;
void *rcl_backup_main(void *arg) LL_HIDDEN;
/* Free servicing threads of @s: in the pool and between two sweeps, so
 * not inside a section (a thread blocked in one, in a way the runtime
 * sees or not, is inside a sweep).  Counted from each thread's own
 * in_sweep flag, so that a sweep costs two plain stores on the thread's
 * line rather than two locked RMWs on a shared counter.  Approximate, as
 * any such count read by other threads; only servicing threads of @s and
 * its manager may call it (the thread list is theirs). */
uint32_t rcl_nfree(struct rcl_server *s) LL_HIDDEN;
/* A servicing thread of @s blocks inside a section (a condition wait, a
 * lock word): if no free thread is left, ask the manager for one now
 * (thesis Fig. 4.3) rather than wait for the backup thread. */
void rcl_sthread_blocks(struct rcl_server *s) LL_HIDDEN;
/* Ask the manager to make sure a free servicing thread exists. */
void rcl_manager_need_thread(struct rcl_server *srv) LL_HIDDEN;
void rcl_manager_kick(struct rcl_server *srv) LL_HIDDEN;
/* Add one servicing thread (manager, or start-up). */
int rcl_pool_add(struct rcl_server *srv) LL_HIDDEN;

/* ---- fork handlers, registered at load (server.c) -------------------------
 */
void rcl_affinity_fork_init(void) LL_HIDDEN;
void rcl_pool_fork_init(void) LL_HIDDEN;
void rcl_ids_fork_init(void) LL_HIDDEN;

/* ---- mutex.c: the runtime's own mutexes ------------------------------------
 * glibc's pthread_mutex_lock/trylock/unlock as libc.so defines them, never
 * an interposer's: under rcl-run a contended runtime mutex would otherwise
 * become a lock of the run's algorithm, built by the runtime it belongs
 * to (see mutex.c). */
struct rcl_mutex_fns {
	int (*lock)(pthread_mutex_t *);
	int (*trylock)(pthread_mutex_t *);
	int (*unlock)(pthread_mutex_t *);
};
extern struct rcl_mutex_fns rcl_mutex LL_HIDDEN;

static inline int rcl_mutex_lock(pthread_mutex_t *m)
{
	return rcl_mutex.lock(m);
}

static inline int rcl_mutex_trylock(pthread_mutex_t *m)
{
	return rcl_mutex.trylock(m);
}

static inline int rcl_mutex_unlock(pthread_mutex_t *m)
{
	return rcl_mutex.unlock(m);
}

/* ---- ship.c: shipped sections --------------------------------------------
 * liblock_lock() on a busy RCL lock ships the caller's context to the
 * server when shipping is on (rcl_ship_set); see ship.c. */
/* RCL_SHIP_ABLE (config.h): x86-64 and no sanitizer (configure.ac) */
/* RCL_SHIP_*, set before the program's threads use RCL locks; read
 * relaxed on every liblock_lock of an RCL lock */
extern _Atomic int rcl_ship_on LL_HIDDEN;
/* The lock whose section this context runs away from its thread (the
 * client's thread-local, read wherever the section runs), or NULL. */
extern __thread struct rcl_lock *rcl_shipped LL_HIDDEN LL_TLS_FAST;
/* liblock_lock() with shipping on. */
int rcl_ship_lock(struct rcl_lock *l) LL_HIDDEN;
/* The unlock of the shipped section: the context goes home. */
int rcl_ship_home(void) LL_HIDDEN;
/* fork() child handler (server.c): a context forked inside a shipped
 * section stays in the child, which holds the word in place. */
void rcl_ship_forked(void) LL_HIDDEN;
/* fork(): from the prepare handler (true) to the parent or child one
 * (false), the calling thread takes busy locks in place. */
void rcl_ship_fork(bool forking) LL_HIDDEN;
/* A remote call from client.c: post @fn(@ctx) in the caller's slot and
 * wait for it; *@status (if not NULL) gets 0 or EBUSY. */
void *rcl_exec_remote(struct rcl_lock *l, liblock_fn_t fn, void *ctx,
		      uint32_t flags, uint32_t *status) LL_HIDDEN;

/* ---- stats.c ---------------------------------------------------------------
 */
/* Add @from's counters to @into (a joined or forked-away thread's). */
void rcl_stats_fold(struct rcl_tstats *into,
		    const struct rcl_tstats *from) LL_HIDDEN;

#endif /* RCL_INT_H */
