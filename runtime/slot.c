/* SPDX-License-Identifier: MIT */
/*
 * The slot protocol's out-of-line steps (the inline ones, and the protocol
 * itself, are in rcl_int.h): the thread's identity (its servicing thread;
 * its token is liblock's, ll_self()), a client running its own request on a
 * stopped server, and waking a parked server.  Both sides of a request
 * use these: client.c and servicing.c do not call into each other.
 *
 * Memory model: C11 acquire/release, see the slot protocol in rcl_int.h.
 */
#include "rcl_int.h"

#include <limits.h>

__thread struct rcl_sthread *rcl_self LL_TLS_FAST;

bool rcl_run_own(struct rcl_server *s, struct rcl_req *r, struct rcl_lock *l)
{
	uintptr_t me = rcl_token(), none = 0;
	/* our own request: we wrote it */
	uintptr_t lk = atomic_load_explicit(&r->lock, memory_order_relaxed);

	if (rcl_req_try(lk)) {
		/* a try request may be refused without the word: claim it,
		 * as a servicing thread would */
		/* acquire: pairs with the claim release in rcl_complete() */
		if (!atomic_compare_exchange_strong_explicit(
			    rcl_claim_word(s, r), &none, me,
			    memory_order_acquire, memory_order_relaxed))
			return false;
		/* acquire: pairs with the release of fn by whoever
		 * completed it */
		if (atomic_load_explicit(&r->fn, memory_order_acquire) ==
		    NULL) {
			rcl_unclaim(s, r);
			return true;
		}
		if (!rcl_word_try(l, me, true)) {
			rcl_complete(s, r, EBUSY);
			return true;
		}
		rcl_run(s, r, me, NULL);
		rcl_lock_release(l, me);
		return true;
	}
	/* the word makes the request ours (rcl_int.h): take it, then see
	 * whether a servicing thread completed the request meanwhile or is
	 * inside it (claimed, in a condition wait) */
	if (!rcl_word_try(l, me, true))
		rcl_word_acquire(l, me, true);
	if (!rcl_pending_for(r, lk)) {
		rcl_lock_release(l, me);
		return true;
	}
	if (!rcl_unclaimed(s, r)) {
		rcl_lock_release(l, me);
		return false;
	}
	rcl_run(s, r, me, NULL);
	rcl_lock_release(l, me);
	return true;
}

void rcl_claim_in_progress(struct rcl_server *s, struct rcl_req *r,
			   uintptr_t me)
{
	for (;;) {
		uintptr_t none = 0;

		/* acquire: pairs with the release of the claim by whoever
		 * held it (a deferral's check, which changed nothing) */
		if (atomic_compare_exchange_strong_explicit(
			    rcl_claim_word(s, r), &none, me,
			    memory_order_acquire, memory_order_relaxed) ||
		    none == me)
			return;
		sched_yield(); /* its holder is a thread of our CPU */
	}
}

void rcl_server_unpark(struct rcl_server *s)
{
	/* relaxed: the request itself is synchronised by its fn word; the
	 * woken thread re-reads every slot with acquire */
	if (atomic_exchange_explicit(&s->idle, 0, memory_order_relaxed) == 1)
		ll_futex_wake(&s->idle,
			      INT_MAX); /* servicing, manager, backup */
}
