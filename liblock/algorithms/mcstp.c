/* SPDX-License-Identifier: MIT */
/*
 * mcstp: MCS with time-published waiters (MCS-TP; He, Scherer and Scott,
 * HiPC'05), as in the RCL thesis, Algs 4 and 5, with its line-38 fix.
 *
 * Design: an MCS queue that tolerates preempted threads.  Waiters publish
 * a timestamp while they spin.  Unlock hands the lock to the first
 * successor whose timestamp is fresh (within UPDATE_DELAY) and marks the
 * ones it skips FAILED: they look preempted, and re-enqueue when they run
 * again.  A waiter that spent PATIENCE in the queue times out (TIMED_OUT)
 * and, when the holder's section looks too long (MAX_CS_TIME, the holder
 * was probably preempted), yields its CPU; lock() then retries, and
 * reclaims its old place in the queue when nobody marked it.  Thesis
 * parameters: UPDATE_DELAY 10 us, PATIENCE 50 us, MAX_CS_TIME 10 ms (ours
 * is 50 us: see the departures).
 *
 * Node status: INIT -> WAITING (enqueued) -> AVAILABLE (handed the lock)
 *   WAITING -> TIMED_OUT (by its owner, after PATIENCE; still queued)
 *   TIMED_OUT -> WAITING (owner reclaims its place: same lock, unmarked)
 *   WAITING|TIMED_OUT -> FAILED (by unlock: skipped, out of the queue).
 * Unlock reads a node's ->next *before* marking it FAILED: once FAILED,
 * its owner may reset ->next and enqueue again.
 *
 * Node lifetime: nodes come from ll_tnode() (one per lock and thread) and
 * are freed by their owner thread's exit destructor.  That is safe
 * because a node is only linked while its owner is inside lock(): a
 * TIMED_OUT waiter retries, reclaiming its place, until it is handed the
 * lock or marked FAILED.  Every foreign access to a node (an unlocker's
 * reads of status, time and ->next; a successor's link of ->next, which
 * the node's unlocker waits for) comes before one release write to its
 * status, FAILED or AVAILABLE, after which no other thread touches it;
 * its owner reads that write with acquire before it reuses or frees the
 * node.  Each read of a mark needs it, including the reclaim CAS that
 * fails on FAILED: a mark made after the unlocker's handover or after it
 * emptied the queue is ordered before nothing else the owner acquires
 * (the TSan race the preload stress test found, t_mcstp reproduces).
 *
 * Departures from the thesis's pseudo-code, each noted where it happens:
 *  - trylock (liblock_trylock) is a one-shot CAS of the tail from NULL,
 *    as in LiTL: the thesis's trylock spins up to PATIENCE and leaves a
 *    TIMED_OUT node in the queue, which a caller that gives up and exits
 *    would free under the unlocker's feet;
 *  - the "treadmill" range (nodes scanned past MCSTP_MAX_SCAN, left
 *    unmarked) is marked FAILED up to and including the last scanned node,
 *    and also when unlock empties the queue; Alg. 5 skips the last one and
 *    the empty case, leaving those waiters spinning on a dead position;
 *  - MAX_CS_TIME is 50 us, not 10 ms.  A thread that Linux preempts is
 *    off its CPU for a scheduling slice, 1 to 4 ms, and back before a
 *    section has lasted 10 ms, so with the thesis's value no waiter ever
 *    yields to it.  The stall that matters most is not a preempted
 *    holder but a preempted grantee: unlock hands the lock to a waiter
 *    seen within UPDATE_DELAY, and when sections are shorter than that,
 *    a waiter descheduled by a tick is granted the lock within
 *    microseconds of losing its CPU; the others then spin on the CPUs
 *    until the next tick.  With 4 threads on 2 CPUs and a write() in each
 *    section (Check's mark in tests/liblock/t_stress_all.c's lock_api
 *    test), its 80,000 sections took up to 136 s with 10 ms (12 runs of
 *    14 on the 2-CPU test machine were still running after 15 s; CI hit
 *    the 120 s timeout) and 1.6 to 2.3 s with 50 us; most of the 10 ms
 *    runs' time is the lock sitting granted to a waiter that is not
 *    running (traced).  Yielding after PATIENCE when
 *    the lock has not changed hands for as long is the rule of ll_wait.h
 *    (spin for about a context switch, then yield); with free CPUs,
 *    sched_yield() returns at once and the waiter keeps its place.
 *
 * Timestamps: CLOCK_MONOTONIC (vDSO, consistent across CPUs), in ns.
 * Owner token and node are kept in the holder's line: EPERM, no lookup.
 * Memory: 2 lines per lock, 1 line per (lock, thread).
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

#define MCSTP_MAX_CS_TIME (50 * 1000LL)	 /* ns; thesis: 10 ms */
#define MCSTP_UPDATE_DELAY (10 * 1000LL) /* ns */
#define MCSTP_PATIENCE (50 * 1000LL)	 /* ns */
/* Alg. 5's MAX_THREADS: nodes one unlock marks FAILED before it starts
 * leaving them in place (the treadmill guard).  tests/liblock/t_mcstp.c
 * compiles this file with a small value to reach that path. */
#ifndef MCSTP_MAX_SCAN
#define MCSTP_MAX_SCAN 256
#endif

enum { TP_INIT, TP_AVAILABLE, TP_WAITING, TP_TIMED_OUT, TP_FAILED };

struct mcstp_lock;

struct mcstp_node {
	_Atomic(struct mcstp_node *) next;  /* written by the successor */
	_Atomic int64_t time;		    /* published by the waiter */
	_Atomic int status;		    /* TP_* */
	const struct mcstp_lock *last_lock; /* owner-private (line 38 fix) */
} LL_ALIGNED;

struct mcstp_lock {
	/* written by every arriving thread */
	_Atomic(struct mcstp_node *) tail LL_ALIGNED;
	/* written by the holder, read by waiters */
	_Atomic int64_t cs_start_time LL_ALIGNED;
	_Atomic uintptr_t owner; /* holder's token, 0 when free */
	struct mcstp_node *holder;
	struct ll_lock_key key;
} LL_ALIGNED;

static_assert(sizeof(struct mcstp_node) == LL_CACHELINE, "one line per node");
static_assert(sizeof(struct mcstp_lock) == 2 * LL_CACHELINE,
	      "tail and holder on separate lines");

static inline int64_t mcstp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Returns 0 or ENOMEM. */
static int mcstp_init(void **impl, const liblock_attr_t *attr)
{
	struct mcstp_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->tail, NULL);
	atomic_init(&l->cs_start_time, 0);
	atomic_init(&l->owner, 0);
	ll_lock_key_init(&l->key);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held or waited for. */
static int mcstp_destroy(void *impl)
{
	struct mcstp_lock *l = impl;

	/* acquire: pairs with the last unlock's release CAS (tail -> NULL) */
	if (atomic_load_explicit(&l->tail, memory_order_acquire) != NULL)
		return EBUSY;
	ll_tnode_forget(&l->key);
	ll_free(l);
	return 0;
}

/* The holder of @l took it: record when and who. */
static inline void mcstp_acquired(struct mcstp_lock *l, struct mcstp_node *me)
{
	atomic_store_explicit(&l->cs_start_time, mcstp_now(),
			      memory_order_relaxed);
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	l->holder = me;
}

/* A waiter leaves the queue attempt: yield if the holder looks preempted
 * (Alg. 4 lines 26-28 and 36-38), and remember which lock we were queued
 * on so that the next attempt may reclaim the position (line 38). */
static bool mcstp_give_up(struct mcstp_lock *l, struct mcstp_node *me)
{
	if (mcstp_now() - atomic_load_explicit(&l->cs_start_time,
					       memory_order_relaxed) >
	    MCSTP_MAX_CS_TIME)
		sched_yield();
	me->last_lock = l;
	return false;
}

/* Enqueue @me afresh (Alg. 4 lines 13-20).  True if the lock was free. */
static bool mcstp_enqueue(struct mcstp_lock *l, struct mcstp_node *me)
{
	struct mcstp_node *pred;

	atomic_store_explicit(&me->status, TP_WAITING, memory_order_relaxed);
	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	/* tail: pred -> me.  release: a successor that gets @me from the
	 * tail sees the stores above; acquire: pairs with the release CAS
	 * of an unlock that emptied the queue */
	pred = atomic_exchange_explicit(&l->tail, me, memory_order_acq_rel);
	if (!pred)
		return true;
	/* release: pairs with the acquire load of ->next in unlock */
	atomic_store_explicit(&pred->next, me, memory_order_release);
	return false;
}

/* One timed attempt (the thesis's trylock, Alg. 4 lines 8-39): true if
 * @me now holds @l, false after a timeout or a FAILED mark. */
static bool mcstp_attempt(struct mcstp_lock *l, struct mcstp_node *me)
{
	int64_t start, t;
	int st = TP_TIMED_OUT;

	/* Reclaim our old position if we timed out on this very lock and
	 * no unlock has marked us since; else enqueue afresh.  acquire
	 * (both ways; success reads our own TIMED_OUT): on failure the CAS
	 * reads FAILED and pairs with the release store of that mark in
	 * unlock, so the marking unlock is done with our node before we
	 * reuse it, or exit and free it (see "Node lifetime" above). */
	if (me->last_lock != l ||
	    !atomic_compare_exchange_strong_explicit(
		    &me->status, &st, TP_WAITING, memory_order_acquire,
		    memory_order_acquire)) {
		if (mcstp_enqueue(l, me))
			return true;
	}
	/* Alg. 4 reads start_time on entry (line 10); reading it here, once
	 * we know we must wait, keeps a clock read (50-130 cycles in a VM)
	 * off the uncontended path and starts the patience when the wait
	 * starts. */
	start = mcstp_now();
	for (;;) {
		/* acquire: pairs with the release CAS/stores in unlock */
		st = atomic_load_explicit(&me->status, memory_order_acquire);
		if (st == TP_AVAILABLE)
			return true;
		if (st == TP_FAILED)
			return mcstp_give_up(l, me);
		while (atomic_load_explicit(&me->status,
					    memory_order_relaxed) ==
		       TP_WAITING) {
			t = mcstp_now();
			atomic_store_explicit(&me->time, t,
					      memory_order_relaxed);
			if (t - start < MCSTP_PATIENCE) {
				ll_cpu_relax();
				continue;
			}
			st = TP_WAITING;
			if (!atomic_compare_exchange_strong_explicit(
				    &me->status, &st, TP_TIMED_OUT,
				    memory_order_relaxed, memory_order_relaxed))
				break; /* handed over or marked: look again */
			return mcstp_give_up(l, me);
		}
	}
}

/* Blocks until acquired.  Returns 0 or ENOMEM. */
static int mcstp_lock(void *impl)
{
	struct mcstp_lock *l = impl;
	struct mcstp_node *me = ll_tnode(&l->key, sizeof(*me));

	if (ll_unlikely(!me))
		return ENOMEM;
	while (!mcstp_attempt(l, me))
		;
	mcstp_acquired(l, me);
	return 0;
}

/* One-shot CAS of the tail from NULL (LiTL's MCS-TimePub trylock; see the
 * header for why not the thesis's).  Returns 0, EBUSY or ENOMEM. */
static int mcstp_trylock(void *impl)
{
	struct mcstp_lock *l = impl;
	struct mcstp_node *me = ll_tnode(&l->key, sizeof(*me)),
			  *expected = NULL;

	if (ll_unlikely(!me))
		return ENOMEM;
	if (atomic_load_explicit(&l->tail, memory_order_relaxed) != NULL)
		return EBUSY;
	atomic_store_explicit(&me->status, TP_WAITING, memory_order_relaxed);
	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	/* tail: NULL -> me.  acq_rel: as the exchange in mcstp_enqueue() */
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &expected, me,
						     memory_order_acq_rel,
						     memory_order_relaxed))
		return EBUSY;
	mcstp_acquired(l, me);
	return 0;
}

/* Mark FAILED every node from @first to @last inclusive (a queue
 * segment), reading each ->next before the mark that frees its owner. */
static void mcstp_fail_range(struct mcstp_node *first, struct mcstp_node *last)
{
	while (first) {
		struct mcstp_node *next =
			first == last
				? NULL
				: atomic_load_explicit(&first->next,
						       memory_order_acquire);

		/* release: our accesses to @first happen before its owner
		 * reuses or frees it; pairs with the acquire reads of
		 * FAILED in mcstp_attempt() (status load, reclaim CAS) */
		atomic_store_explicit(&first->status, TP_FAILED,
				      memory_order_release);
		first = next;
	}
}

/* Is @succ waiting and recently seen running?  Then hand it the lock. */
static bool mcstp_grant(struct mcstp_node *succ)
{
	int st = TP_WAITING;

	if (atomic_load_explicit(&succ->status, memory_order_relaxed) !=
	    TP_WAITING)
		return false;
	if (mcstp_now() -
		    atomic_load_explicit(&succ->time, memory_order_relaxed) >
	    MCSTP_UPDATE_DELAY)
		return false;
	/* WAITING -> AVAILABLE.  release: the section's writes go with the
	 * lock; pairs with the waiter's acquire load of its status */
	return atomic_compare_exchange_strong_explicit(
		&succ->status, &st, TP_AVAILABLE, memory_order_release,
		memory_order_relaxed);
}

/* Alg. 5.  Caller holds the lock.  Returns 0, or EPERM if it does not. */
static int mcstp_unlock(void *impl)
{
	struct mcstp_lock *l = impl;
	struct mcstp_node *curr, *succ, *last = NULL, *expected;
	unsigned int scanned = 0, polls = 0;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	curr = l->holder;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	for (;;) {
		/* acquire: pairs with the successor's release of ->next */
		succ = atomic_load_explicit(&curr->next, memory_order_acquire);
		if (!succ) {
			expected = curr;
			/* tail: curr -> NULL.  release: the next thread to
			 * take the tail acquires the section's writes */
			if (atomic_compare_exchange_strong_explicit(
				    &l->tail, &expected, NULL,
				    memory_order_release,
				    memory_order_relaxed)) {
				/* departure: Alg. 5 marks only curr here */
				mcstp_fail_range(last ? last : curr, curr);
				return 0;
			}
			/* A successor is between its exchange and its link. */
			while (!(succ = atomic_load_explicit(
					 &curr->next, memory_order_acquire)))
				ll_spin_poll(&polls);
		}
		/* release: as the mark in mcstp_fail_range() */
		if (++scanned < MCSTP_MAX_SCAN)
			atomic_store_explicit(&curr->status, TP_FAILED,
					      memory_order_release);
		else if (!last)
			last = curr; /* treadmill: stop re-enqueueing them */
		if (mcstp_grant(succ)) {
			/* departure: Alg. 5 stops before curr */
			mcstp_fail_range(last, curr);
			return 0;
		}
		curr = succ;
	}
}

const struct ll_ops ll_mcstp_ops = {
	.name = "mcstp",
	.summary =
		"MCS-TP: time-published MCS, skips preempted waiters (thesis)",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = mcstp_init,
	.destroy = mcstp_destroy,
	.lock = mcstp_lock,
	.trylock = mcstp_trylock,
	.unlock = mcstp_unlock,
};
