/* SPDX-License-Identifier: MIT */
/*
 * The lock word of an RCL lock (layout and bits in rcl_int.h): held
 * sections (liblock_lock/trylock/unlock on an "rcl" lock), the slow paths
 * of the servicing threads' take and release, and what happens when a
 * holder never comes back.
 *
 * Held sections.  A thread takes the word itself: one CAS (0) -> (token)
 * when it is free, else it counts itself in @waiting, spins a little and
 * parks on the futex of the word's low 32 bits after setting
 * RCL_W_SLEEPERS (the futex mutex of Drepper's "Futexes are tricky",
 * version 2: a thread that slept sets SLEEPERS again when it takes the
 * word, so a release never leaves a sleeper behind).
 *
 * Delegated sections.  A servicing thread never waits for the word: when
 * it is held, or free while held-section threads wait for it, it sets
 * RCL_W_SRV_WANT and leaves the request pending; the thread that
 * releases the word turns it into RCL_W_HANDOFF, which only a servicing
 * thread of the lock's server (or a client running its own request on a
 * stopped server) takes.  So when both kinds want the lock they
 * alternate: a held-section thread waits for at most the delegated
 * section under way, and a delegated request for at most the held
 * section under way plus those of the threads that were already waiting.
 *
 * Memory model: the word is taken with acquire CASes and released with
 * release CASes (rcl_lock_release() and rcl_word_release_slow()); every
 * other update of the word only sets or clears flag bits and is relaxed:
 * the RMW order on the word is what makes them safe.
 */
#include "rcl_int.h"

#include <limits.h>
#include <stdlib.h>

/* Polls before a thread waiting for a held word parks: about 5 us of
 * pause, a few short sections. */
#define RCL_WORD_SPIN 128u

/* The futex word: the low 32 bits of the lock word.  A value with the
 * same low half as the one a sleeper saw also has SLEEPERS set, so its
 * release wakes the sleeper: no wake-up is lost to the truncation. */
static inline _Atomic uint32_t *word_futex(struct rcl_lock *l)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (_Atomic uint32_t *)(void *)&l->holder;
#else
	return (_Atomic uint32_t *)(void *)((char *)&l->holder +
					    sizeof(uintptr_t) -
					    sizeof(uint32_t));
#endif
}

void rcl_word_release_slow(struct rcl_lock *l, uintptr_t w)
{
	/* release: the section's writes happen before the next holder's
	 * (its acquire CAS); the server's want, if any, is served: drop it */
	while (!atomic_compare_exchange_weak_explicit(
		&l->holder, &w, 0, memory_order_release, memory_order_relaxed))
		;
	if (w & RCL_W_SLEEPERS)
		ll_futex_wake(word_futex(l), 1);
}

/* The end of a held section: free the word, or hand it to the server if
 * a delegated request waits for it (it runs on the next sweep). */
void rcl_word_release_held(struct rcl_lock *l, uintptr_t me)
{
	uintptr_t w = me, next;

	/* release: as rcl_lock_release() */
	if (atomic_compare_exchange_strong_explicit(&l->holder, &w, 0,
						    memory_order_release,
						    memory_order_relaxed))
		return;
	do
		next = (w & RCL_W_SRV_WANT)
			       ? RCL_W_HANDOFF | (w & RCL_W_SLEEPERS)
			       : 0;
	while (!atomic_compare_exchange_weak_explicit(&l->holder, &w, next,
						      memory_order_release,
						      memory_order_relaxed));
	if (next != 0) {
		/* wake the server if it parked for lack of requests */
		if (atomic_load_explicit(&l->server->idle,
					 memory_order_relaxed))
			rcl_server_unpark(l->server);
	} else if (w & RCL_W_SLEEPERS) {
		ll_futex_wake(word_futex(l), 1);
	}
}

/* Our want, set for the request in @r, may be stale: @r was completed
 * (by a servicing thread that held the word) before we set it.  Drop it,
 * or give back a hand-over it already caused; a servicing thread whose
 * request really waits sets it again on its next sweep. */
static void unwant(struct rcl_lock *l)
{
	uintptr_t w = atomic_load_explicit(&l->holder, memory_order_relaxed);

	for (;;) {
		uintptr_t own = rcl_w_owner(w), next;

		if (own == RCL_W_HANDOFF)
			next = 0;
		else if (w & RCL_W_SRV_WANT)
			next = w & ~(uintptr_t)RCL_W_SRV_WANT;
		else
			return;
		/* release: a hand-over given back publishes nothing, but
		 * the next taker must not see less than the releaser did */
		if (atomic_compare_exchange_weak_explicit(
			    &l->holder, &w, next, memory_order_acq_rel,
			    memory_order_relaxed)) {
			if (own == RCL_W_HANDOFF && (w & RCL_W_SLEEPERS))
				ll_futex_wake(word_futex(l), 1);
			return;
		}
	}
}

bool rcl_word_serve(struct rcl_req *r, uintptr_t lk, uintptr_t me)
{
	struct rcl_lock *l = rcl_req_lock(lk);
	uintptr_t w = atomic_load_explicit(&l->holder, memory_order_relaxed);

	for (;;) {
		uintptr_t own = rcl_w_owner(w);

		if (own == RCL_W_HANDOFF ||
		    (own == 0 &&
		     atomic_load_explicit(&l->waiting, memory_order_relaxed) ==
			     0)) {
			/* acquire: pairs with the releaser's CAS */
			if (atomic_compare_exchange_weak_explicit(
				    &l->holder, &w, me | (w & RCL_W_SLEEPERS),
				    memory_order_acquire, memory_order_relaxed))
				return true;
			continue;
		}
		if (!(w & RCL_W_SRV_WANT) &&
		    !atomic_compare_exchange_weak_explicit(
			    &l->holder, &w, w | RCL_W_SRV_WANT,
			    memory_order_relaxed, memory_order_relaxed))
			continue;
		/* The want must stand for a pending request: @r was pending
		 * when claimed, but a servicing thread holding the word may
		 * have completed it since (completions need the word, not
		 * the claim).  Still pending now: whoever holds the word
		 * cannot complete it any more without handing over first. */
		if (!rcl_pending_for(r, lk))
			unwant(l);
		return false;
	}
}

bool rcl_word_try(struct rcl_lock *l, uintptr_t me, bool server)
{
	uintptr_t w = atomic_load_explicit(&l->holder, memory_order_relaxed);

	for (;;) {
		uintptr_t own = rcl_w_owner(w);

		if (own != 0 && !(server && own == RCL_W_HANDOFF))
			return false;
		/* acquire: pairs with the releaser's CAS; the flags stay
		 * (a pending delegated request gets the word next) */
		if (atomic_compare_exchange_weak_explicit(
			    &l->holder, &w, me | (w & RCL_W_FLAGS),
			    memory_order_acquire, memory_order_relaxed))
			return true;
	}
}

void rcl_word_acquire(struct rcl_lock *l, uintptr_t me, bool server)
{
	struct rcl_sthread *self = rcl_self;
	unsigned int polls = 0;
	uintptr_t slept = 0;
	bool asked = false;

	atomic_fetch_add_explicit(&l->waiting, 1, memory_order_relaxed);
	for (;;) {
		uintptr_t w =
			atomic_load_explicit(&l->holder, memory_order_relaxed);
		uintptr_t own = rcl_w_owner(w);

		if (own == 0 || (server && own == RCL_W_HANDOFF)) {
			/* acquire: pairs with the releaser's CAS.  A thread
			 * that slept assumes others still sleep. */
			if (atomic_compare_exchange_weak_explicit(
				    &l->holder, &w,
				    me | (w & RCL_W_FLAGS) | slept,
				    memory_order_acquire, memory_order_relaxed))
				break;
			continue;
		}
		if (server) {
			/* a client on a stopped server: the holder may need
			 * our CPU; never sleep, HANDOFF has no waker */
			sched_yield();
			continue;
		}
		/* a servicing thread parks at once: the holder may be
		 * another thread of its own CPU */
		if (!self && polls < RCL_WORD_SPIN) {
			polls++;
			ll_cpu_relax();
			continue;
		}
		if (!(w & RCL_W_SLEEPERS) &&
		    !atomic_compare_exchange_weak_explicit(
			    &l->holder, &w, w | RCL_W_SLEEPERS,
			    memory_order_relaxed, memory_order_relaxed))
			continue;
		/* a servicing thread blocks in a section: counted, so the
		 * manager keeps a free thread serving the other locks */
		if (self && !asked) {
			rcl_sthread_blocks(self->srv);
			asked = true;
		}
		ll_futex_wait(word_futex(l), (uint32_t)(w | RCL_W_SLEEPERS),
			      NULL, CLOCK_MONOTONIC);
		slept = RCL_W_SLEEPERS;
	}
	atomic_fetch_sub_explicit(&l->waiting, 1, memory_order_relaxed);
}

/* ---- the locks a thread holds ------------------------------------------
 * Held sections are recorded per thread so that liblock_exec inside one
 * of them on the same lock is reported (it would wait for itself), and so
 * that a thread that exits holding words gives them to RCL_W_ORPHAN.
 *
 * A POSIX mutex whose holder ended stays locked, and its waiters wait
 * until the process ends.  A program that ends a thread holding a lock
 * is usually ending the process from another thread (lbzip2's bailout()
 * raises a signal that the main thread answers with _exit(), then calls
 * pthread_exit()): stopping the waiters would change how it ends, so
 * they wait the same way, and the exit is reported.  The owner must not
 * stay the exited thread's token: a thread created later may be given
 * the same one, and would then unlock a lock it never took. */
struct held {
	struct rcl_lock **v;
	uint32_t n, cap;
};

static __thread struct held held LL_TLS_FAST;
static pthread_key_t held_key;
static pthread_once_t held_once = PTHREAD_ONCE_INIT;

static void held_exit(void *arg)
{
	struct held *h = arg;
	uintptr_t me = rcl_token();

	for (uint32_t i = 0; i < h->n; i++) {
		struct rcl_lock *l = h->v[i];
		uintptr_t w =
			atomic_load_explicit(&l->holder, memory_order_relaxed);

		/* Relaxed: nothing of the section is published to anyone;
		 * the flags stay, and with them the sleepers' and the
		 * server's waits (for ever, as POSIX waiters'). */
		while (rcl_w_owner(w) == me &&
		       !atomic_compare_exchange_weak_explicit(
			       &l->holder, &w, RCL_W_ORPHAN | (w & RCL_W_FLAGS),
			       memory_order_relaxed, memory_order_relaxed))
			;
		if (rcl_w_owner(w) != me)
			continue;
		ll_log(LL_WARN,
		       "a thread exited holding RCL lock %p: its waiters wait "
		       "for ever, as a POSIX mutex's would",
		       (void *)l);
	}
	ll_free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

static void held_key_create(void)
{
	if (pthread_key_create(&held_key, held_exit) != 0)
		ll_fatal("cannot create the RCL held-lock key");
}

/* Room for one more held lock; ENOMEM if there is none. */
static int held_reserve(void)
{
	struct rcl_lock **v;
	uint32_t cap;

	if (held.n < held.cap)
		return 0;
	cap = held.cap ? 2 * held.cap : 8;
	if ((v = ll_realloc(held.v, cap * sizeof(*v))) == NULL)
		return ENOMEM;
	if (held.cap == 0) {
		pthread_once(&held_once, held_key_create);
		if (pthread_setspecific(held_key, &held) != 0) {
			ll_free(v);
			return ENOMEM;
		}
	}
	held.v = v;
	held.cap = cap;
	return 0;
}

bool rcl_word_held_by_me(struct rcl_lock *l)
{
	for (uint32_t i = held.n; i-- > 0;)
		if (held.v[i] == l)
			return true;
	return false;
}

int rcl_word_lock(struct rcl_lock *l)
{
	uintptr_t me = rcl_token(), free_word = 0;

	if (held_reserve() != 0)
		return ENOMEM;
	if (rcl_word_held_by_me(l))
		return EDEADLK;
	/* acquire: pairs with the releaser's CAS */
	if (!atomic_compare_exchange_strong_explicit(&l->holder, &free_word, me,
						     memory_order_acquire,
						     memory_order_relaxed))
		rcl_word_acquire(l, me, false);
	held.v[held.n++] = l;
	return 0;
}

void rcl_word_note_held(struct rcl_lock *l)
{
	if (held_reserve() != 0)
		ll_fatal("fork: no memory to keep RCL lock %p held in place",
			 (void *)l);
	held.v[held.n++] = l;
}

void rcl_word_pass(struct rcl_lock *l, uintptr_t from, uintptr_t to)
{
	uintptr_t w = atomic_load_explicit(&l->holder, memory_order_relaxed);

	do {
		if (rcl_w_owner(w) != from)
			ll_fatal("RCL lock %p: its word is not ours to hand "
				 "over",
				 (void *)l);
		/* relaxed: the new owner is the section's own thread, which
		 * learns of it through its request's completion (release,
		 * then its acquire); the flags of waiters stay, for its
		 * release to act on */
	} while (!atomic_compare_exchange_weak_explicit(
		&l->holder, &w, to | (w & RCL_W_FLAGS), memory_order_relaxed,
		memory_order_relaxed));
}

void rcl_word_adopt(struct rcl_lock *l)
{
	/* single-threaded child: nobody else waits or serves any more */
	atomic_store_explicit(&l->waiting, 0, memory_order_relaxed);
	atomic_store_explicit(&l->holder, rcl_token(), memory_order_relaxed);
	rcl_word_note_held(l);
}

bool rcl_word_wait_kept(struct rcl_lock *l, uintptr_t me)
{
	unsigned int polls = 0;
	uintptr_t keeper, own;
	bool got = false;

	if (!atomic_load_explicit(&l->kept, memory_order_relaxed))
		return false;
	/* kept is set by the word's owner only, and cleared before it
	 * lets go: its owner now (or, if it let go meanwhile, the owner
	 * since, for at most one section) is the keeper */
	keeper = rcl_w_owner(
		atomic_load_explicit(&l->holder, memory_order_relaxed));
	/* Counted in @waiting: the keeper lets go at the end of its sweep
	 * (servicing.c) and no servicing thread takes the free word while
	 * we wait. */
	atomic_fetch_add_explicit(&l->waiting, 1, memory_order_relaxed);
	for (;;) {
		if (me && (got = rcl_word_try(l, me, false)))
			break;
		own = rcl_w_owner(
			atomic_load_explicit(&l->holder, memory_order_relaxed));
		if (own == 0) {
			if (!me)
				break;
			continue; /* free: take it */
		}
		/* neither kept nor the keeper letting go (it clears kept
		 * just before its release): a section holds the word */
		if (own != keeper &&
		    !atomic_load_explicit(&l->kept, memory_order_relaxed))
			break;
		/* the keeper may share our CPU */
		ll_poll(&polls, RCL_WORD_SPIN);
	}
	atomic_fetch_sub_explicit(&l->waiting, 1, memory_order_relaxed);
	return got;
}

bool rcl_word_try_kept(struct rcl_lock *l, uintptr_t me)
{
	return rcl_word_try(l, me, false) || rcl_word_wait_kept(l, me);
}

static int word_trylock(struct rcl_lock *l, bool wait_kept)
{
	uintptr_t me = rcl_token();

	if (held_reserve() != 0)
		return ENOMEM;
	if (!(wait_kept ? rcl_word_try_kept(l, me)
			: rcl_word_try(l, me, false)))
		return EBUSY;
	held.v[held.n++] = l;
	return 0;
}

int rcl_word_trylock(struct rcl_lock *l)
{
	return word_trylock(l, true);
}

int rcl_word_trylock_now(struct rcl_lock *l)
{
	return word_trylock(l, false);
}

int rcl_word_unlock(struct rcl_lock *l)
{
	uintptr_t me = rcl_token();
	uint32_t i = held.n;

	while (i-- > 0 && held.v[i] != l)
		;
	if (i == UINT32_MAX || rcl_w_owner(atomic_load_explicit(
				       &l->holder, memory_order_relaxed)) != me)
		return EPERM;
	memmove(&held.v[i], &held.v[i + 1], (held.n - i - 1) * sizeof(*held.v));
	held.n--;
	rcl_word_release_held(l, me);
	return 0;
}
