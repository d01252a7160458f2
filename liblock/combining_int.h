/* SPDX-License-Identifier: MIT */
/*
 * Shared machinery of the combining locks (fc, ccsynch, dsmsynch); the
 * queue node of ccsynch and dsmsynch.
 *
 * 1. Per-(lock, thread) slots whose node is handed to a release callback
 *    when the thread exits.  Combining nodes outlive a lock call and may
 *    migrate between threads (CC-Synch), so ll_tnode()'s "free the node
 *    at exit" is not enough: each algorithm decides in its callback
 *    whether it may free the node now or must leave it to the lock.
 *
 * 2. Combining-pass records.  A thread that runs sections as combiner
 *    pushes a record naming the lock; liblock_cond_wait() inside a
 *    section finds it and asks the algorithm to *detach* the pass: hand
 *    the combiner role on (the lock is free for the others), sleep, then
 *    take the lock again in lock mode.  The section then finishes on the
 *    same thread, its result goes to its requester, and the pass stops.
 *    The combiner's own thread is then stuck in somebody else's wait, and
 *    its own program cannot go on (it may be the one that would signal).
 *    So the function of a section that waited is *learned*: combiners
 *    never run a learned function for another thread; they hand the
 *    role (or, in fc, leave the request) to its owner, which runs it on
 *    its own stack.  Only the first wait of each function can borrow a
 *    combiner's thread.
 *
 * 3. Waiting is ll_wait.h's poll step with the budget LL_SPIN_BUDGET
 *    (ll_poll, ll_spin_until): pause 1024 polls, then yield on every
 *    poll, so that a descheduled combiner gets a CPU back when threads
 *    outnumber CPUs.  The budget is longer than the spin locks' (128)
 *    because a waiter here waits for a whole combining pass.
 *
 * Memory model: C11 only.
 */
#ifndef COMBINING_INT_H
#define COMBINING_INT_H

#include "ll_int.h"
#include "ll_wait.h"

/* ---- per-(lock, thread) slots ----------------------------------------- */

struct ll_comb_slot {
	void *node;		     /* the algorithm's state; NULL until set */
	void (*release)(void *node); /* run at thread exit if node != NULL */
	struct ll_comb_slot *next;   /* the thread's list of slots */
};

/* The calling thread's slot for @key, created empty (node NULL) on first
 * use with @release as its exit callback.  Aborts on ENOMEM: a lock call
 * has no way to fail. */
struct ll_comb_slot *ll_comb_slot(const struct ll_lock_key *key,
				  void (*release)(void *node)) LL_HIDDEN;

/* ---- combining passes ------------------------------------------------- */

struct ll_comb_pass {
	struct ll_comb_pass *outer; /* pass of an enclosing lock, or NULL */
	const void *impl;	    /* the lock this pass combines for */
	liblock_fn_t fn;	    /* section running now (set by the pass) */
	bool detached;		    /* a section waited: lock now held in
				     * lock mode by this thread */
};

/* Push/pop the calling thread's record of a pass on @impl. */
void ll_comb_pass_begin(struct ll_comb_pass *p, const void *impl) LL_HIDDEN;
void ll_comb_pass_end(struct ll_comb_pass *p) LL_HIDDEN;

/* Has a section of function @fn ever waited on a condition variable?
 * Combiners do not run such a function for another thread. */
bool ll_comb_waits(liblock_fn_t fn) LL_HIDDEN;

/* ops->cond_wait of a combining lock.  @detach ends the pass @p (the
 * section in progress stays unfinished, its requester keeps waiting) and
 * hands the combiner role on; @lock / @unlock are the lock-mode calls.
 * Inside a pass that is not detached yet: detach, sleep, lock.  Otherwise
 * (lock mode, or a pass already detached): unlock, sleep, lock.  Learns
 * the section's function (ll_comb_waits).  Returns 0, ETIMEDOUT, or the
 * error of @unlock (EPERM outside a section of @impl). */
int ll_comb_cond_wait(void *impl, liblock_cond_t *cond,
		      const struct timespec *abstime,
		      void (*detach)(void *impl, struct ll_comb_pass *p),
		      int (*lock)(void *impl),
		      int (*unlock)(void *impl)) LL_HIDDEN;

/* ---- the queue node of CC-Synch and DSM-Synch ------------------------ */
/* Both queue one node per request and a combiner walks the queue.  They
 * differ in who owns the nodes (CC-Synch: nodes migrate, each thread
 * keeps the one it got back as its spare; DSM-Synch: two per thread,
 * used in turn, so a thread only spins on its own) and so in how a pass
 * ends and how nodes are freed: two files.  The node, its answer, the
 * hand-off of the role and the lock-mode marker are the same. */
struct ll_comb_node {
	/* request: written by the thread that queues the node */
	liblock_fn_t fn;
	void *ctx;
	/* written once, with release, by the thread whose node comes next
	 * (CC-Synch: by this node's requester, linking its spare) */
	_Atomic(struct ll_comb_node *) next;
	/* response: written by the combiner (reset by the node's owner) */
	void *ret LL_ALIGNED;
	bool completed;
	_Atomic uint32_t wait; /* 1 while the owner must wait */
} LL_ALIGNED;

static_assert(sizeof(struct ll_comb_node) == 2 * LL_CACHELINE,
	      "request and response on lines of their own");

/* The fn of a lock-mode node (a thread that takes the lock rather than
 * sending a section): combiners stop before it.  Never called. */
void *ll_comb_lock_node(void *ctx) LL_HIDDEN;

/* Answer another thread's section @n with its result @r. */
static inline void ll_comb_answer(struct ll_comb_node *n, void *r)
{
	n->ret = r;
	n->completed = true;
	/* release: pairs with the owner's acquire of wait (ll_spin_until);
	 * ret and completed go with it */
	atomic_store_explicit(&n->wait, 0, memory_order_release);
}

/* One step of a pass @p whose combiner queued @own: run @n's section,
 * its result to *@own_ret (the combiner's own) or to its requester.
 * True if the section waited: the pass is detached, and the combiner
 * now holds the lock in lock mode and must leave as a holder. */
static inline bool ll_comb_run_node(struct ll_comb_pass *p,
				    struct ll_comb_node *n,
				    const struct ll_comb_node *own,
				    void **own_ret)
{
	void *r;

	p->fn = n->fn;
	r = n->fn(n->ctx);
	if (n == own)
		*own_ret = r;
	else
		ll_comb_answer(n, r);
	return p->detached;
}

/* Hand the combiner role (or the lock) to @n's owner, which finds its
 * section not completed and combines. */
static inline void ll_comb_hand_on(struct ll_comb_node *n)
{
	/* release: the sections run so far go with the role */
	atomic_store_explicit(&n->wait, 0, memory_order_release);
}

/* MAX_COMBINER_CS: sections one combiner runs per pass, n x h with n = 3
 * (thesis §5.1), h = number of CPUs. */
unsigned int ll_comb_max_cs(void) LL_HIDDEN;

#endif /* COMBINING_INT_H */
