/* SPDX-License-Identifier: MIT */
/*
 * Servicing threads: the loop of thesis Alg. 10.
 *
 * Fast path (one thread in the pool): sweep the request array up to the
 * highest live client id; for each pending request take its lock word,
 * claim the slot, run the section, clear fn, release the lock.  A request
 * whose lock is busy (its section runs on another servicing thread that
 * blocked or spins) is skipped and retried on the next sweep.
 * Slow path (several threads in the pool): yield if the other servicing
 * threads are all inside sections, else leave the pool (push self on the
 * prepared stack and sleep on a futex until the manager needs us).
 *
 * Departures from the thesis, each for a reason given where it happens:
 * the owner claim (§2.4 race), idle parking (RT throttling; an idle server
 * must not spin at real-time priority), periodic sched_yield (several
 * servers of different processes may share a CPU at the same priority).
 *
 * The steps on lock words and slots are the slot protocol's (rcl_int.h,
 * slot.c).
 *
 * Memory model: C11 acquire/release, see the slot protocol in rcl_int.h.
 */
#include "rcl_int.h"

/* Let go of the word this thread keeps between sections, if any. */
static void let_go(struct rcl_sthread *t, uintptr_t me)
{
	struct rcl_lock *l =
		atomic_load_explicit(&t->kept, memory_order_relaxed);

	if (!l)
		return;
	/* relaxed: both are ordered before the word's release by its
	 * release CAS, so a thread (or a fork child) that sees the word free
	 * or taken by someone else sees them cleared */
	atomic_store_explicit(&l->kept, 0, memory_order_relaxed);
	atomic_store_explicit(&t->kept, NULL, memory_order_relaxed);
	rcl_lock_release(l, me);
}

/* Does anyone but us want the word we keep, @l?  A held-section thread
 * (or trylock, destroy) counts itself in @waiting; another servicing
 * thread that found it busy set RCL_W_SRV_WANT; a sleeper set
 * RCL_W_SLEEPERS.  All on the word's line, which is ours. */
static bool wanted(struct rcl_lock *l)
{
	return atomic_load_explicit(&l->waiting, memory_order_relaxed) != 0 ||
	       (atomic_load_explicit(&l->holder, memory_order_relaxed) &
		RCL_W_FLAGS) != 0;
}

/* Serve the request in @r if its lock's word can be had; returns the lock
 * served, or NULL.  Fast path: a free word nobody waits for, taken, then
 * the slot re-validated (the word is what makes the request ours, see
 * the slot protocol in rcl_int.h).  Try requests, and any request whose
 * word is busy or wanted, take the slot's claim first: a try request may
 * be completed without its word (EBUSY), and a deferral (RCL_W_SRV_WANT)
 * is only left for a request validated under the claim.
 *
 * The word of the lock served last stays ours (t->kept) while the next
 * requests are for the same lock and nobody else wants it, in this sweep
 * and the next ones (see sweep()): many clients of one hot lock, or one
 * client calling again and again, cost no take and no release at all.
 * A thread waiting for the word waits at most for the request being
 * served and the rest of the sweep. */
static struct rcl_lock *serve(struct rcl_server *s, struct rcl_req *r,
			      uintptr_t me, struct rcl_sthread *t)
{
	struct rcl_lock *l, *k;
	uintptr_t lk;
	bool try;

	/* acquire: pairs with the client's release of fn, so lock is the
	 * request's or newer (lock structures are never freed).  Every
	 * later check re-validates the slot against @lk, lock and kind
	 * together (rcl_int.h). */
	if (atomic_load_explicit(&r->fn, memory_order_acquire) == NULL)
		return NULL;
	lk = atomic_load_explicit(&r->lock, memory_order_relaxed);
	l = rcl_req_lock(lk);
	try = rcl_req_try(lk);
	k = atomic_load_explicit(&t->kept, memory_order_relaxed);
	if (k) {
		if (l == k && !try &&
		    atomic_load_explicit(&l->waiting, memory_order_relaxed) ==
			    0) {
			if (!rcl_pending_for(r, lk) || !rcl_unclaimed(s, r))
				return NULL;
			goto run;
		}
		let_go(t, me);
	}
	if (ll_likely(rcl_lock_try(l, me))) {
		if (!rcl_pending_for(r, lk) || !rcl_unclaimed(s, r) ||
		    (try && !rcl_claim(s, r, lk, me))) {
			rcl_lock_release(l, me);
			return NULL;
		}
	} else {
		if (!rcl_claim(s, r, lk, me))
			return NULL;
		if (try) {
			/* claimed and validated: the try request stays ours
			 * until we complete or unclaim it */
			if (rcl_word_try(l, me, true)) {
				/* word and claim held */
			} else if (!atomic_load_explicit(
					   &l->kept, memory_order_relaxed)) {
				rcl_complete(s, r, EBUSY);
				RCL_STAT_INC(t->st.try_busy);
				return NULL;
			} else if (!rcl_word_serve(r, lk, me)) {
				/* another servicing thread keeps the word
				 * between sections: the lock is not busy;
				 * our want makes it let go, try again */
				rcl_unclaim(s, r);
				RCL_STAT_INC(t->st.deferred);
				return NULL;
			}
		} else if (!rcl_word_serve(r, lk, me)) {
			/* it stays pending */
			rcl_unclaim(s, r);
			RCL_STAT_INC(t->st.deferred);
			return NULL;
		} else if (!rcl_pending_for(r, lk)) {
			/* The claim does not stop the word's holder: it may
			 * have seen the slot unclaimed just before we
			 * claimed it, run the request and released the word
			 * we then took.  Only the word makes a plain
			 * request ours: look again now that we hold it. */
			rcl_unclaim(s, r);
			rcl_lock_release(l, me);
			return NULL;
		}
		/* word and claim held: the request is ours */
	}
	atomic_store_explicit(&t->kept, l, memory_order_relaxed);
run:
	/* not kept while the section runs: a trylock then finds the lock
	 * busy, as it is.  The fence keeps the section's stores after this
	 * one for a fork child, which frees a word kept between sections
	 * only (server.c).  ThreadSanitizer does not model fences (GCC
	 * refuses them under -fsanitize=thread): there an acquire-release
	 * exchange, which orders the section after it too, stands in. */
#ifdef __SANITIZE_THREAD__
	atomic_exchange_explicit(&l->kept, 0, memory_order_acq_rel);
#else
	atomic_store_explicit(&l->kept, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
#endif
	t->req = r;
	rcl_run(s, r, me, l);
	t->req = NULL;
	return l;
}

/* One pass over the request array; returns the sections executed.  The
 * word kept last stays ours after the sweep unless someone wants it. */
static unsigned int sweep(struct rcl_server *s, struct rcl_sthread *t,
			  uintptr_t me)
{
	uint32_t n = rcl_ids_limit();
	struct rcl_lock *first = NULL, *k, *l;
	unsigned int served = 0;
	bool multi = false;

	for (uint32_t i = 0; i < n; i++) {
		struct rcl_req *r = &s->reqs[i];

		if (atomic_load_explicit(&r->fn, memory_order_relaxed) == NULL)
			continue;
		if ((l = serve(s, r, me, t)) == NULL)
			continue;
		served++;
		if (!first)
			first = l;
		else if (l != first)
			multi = true;
	}
	k = atomic_load_explicit(&t->kept, memory_order_relaxed);
	if (k && wanted(k))
		let_go(t, me);
	RCL_STAT_INC(t->st.sweeps);
	if (served) {
		RCL_STAT_INC(t->st.active_sweeps);
		RCL_STAT_ADD(t->st.scanned_active, n);
		RCL_STAT_ADD(t->st.cs, served);
		if (multi)
			RCL_STAT_INC(t->st.multi_lock);
	}
	return served;
}

/* A full sweep, counted as busy (rcl_nfree) while it runs.  Relaxed
 * flag: the count it feeds is approximate by nature (rcl_int.h). */
static unsigned int counted_sweep(struct rcl_server *s, struct rcl_sthread *t,
				  uintptr_t me)
{
	unsigned int n;

	atomic_store_explicit(&t->in_sweep, 1, memory_order_relaxed);
	n = sweep(s, t, me);
	atomic_store_explicit(&t->in_sweep, 0, memory_order_relaxed);
	return n;
}

/* Sleep until a client (or stop) clears s->idle.  A client that published
 * before seeing idle == 1 re-checks idle while it waits (client.c), so a
 * request cannot be stranded. */
static void park(struct rcl_server *s, struct rcl_sthread *t)
{
	RCL_STAT_INC(t->st.idle_parks);
	/* seq_cst: make the flag visible before the re-check sweep reads */
	atomic_store_explicit(&s->idle, 1, memory_order_seq_cst);
	/* seq_cst, with the state and idle stores of stop_threads(): either
	 * this load sees the stop, or stop's idle = 0 comes after our idle =
	 * 1 in the total order.  Without it the manager and the backup could
	 * sleep on an idle word nobody clears again. */
	if (atomic_load_explicit(&s->state, memory_order_seq_cst) !=
	    RCL_RUNNING) {
		rcl_server_unpark(s);
		return;
	}
	if (counted_sweep(s, t, rcl_token()) != 0) {
		rcl_server_unpark(s);
		return;
	}
	/* nobody could make a sleeping keeper let go */
	let_go(t, rcl_token());
	while (atomic_load_explicit(&s->idle, memory_order_relaxed) == 1 &&
	       atomic_load_explicit(&s->state, memory_order_relaxed) ==
		       RCL_RUNNING)
		ll_futex_wait(&s->idle, 1, NULL, CLOCK_MONOTONIC);
}

struct idle_state {
	unsigned int empty, busy;
	uint64_t since; /* ns, 0: not idle */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* After a sweep: share the CPU now and then, park when idle long. */
static void after_sweep(struct rcl_server *s, struct rcl_sthread *t,
			unsigned int served, struct idle_state *is)
{
	uint64_t now;

	if (served) {
		is->empty = 0;
		is->since = 0;
		/* other processes' servers on this CPU get a turn */
		if ((++is->busy & 1023) == 0)
			sched_yield();
		return;
	}
	if (++is->empty % 64)
		return;
	now = now_ns();
	if (is->since == 0) {
		is->since = now;
		return;
	}
	/* Yield only once idle for a while: a client between two calls
	 * leaves the server a few empty sweeps, and a yield (a syscall)
	 * there would land on the next call's critical path. */
	if (now - is->since < RCL_IDLE_YIELD_NS)
		return;
	sched_yield();
	if (now - is->since < RCL_IDLE_PARK_NS || rcl_nfree(s) != 1)
		return;
	park(s, t);
	is->since = 0;
	is->empty = 0;
}

/* Thesis Alg. 10 l.27-29: leave the pool and sleep until reactivated.
 * The futex compares is_servicing, so a wake-up that comes before we
 * sleep is not lost. */
static void leave_pool(struct rcl_server *s, struct rcl_sthread *t)
{
	struct rcl_sthread *head;

	let_go(t, rcl_token()); /* as before parking */
	atomic_store_explicit(&t->is_servicing, RCL_PREPARED,
			      memory_order_relaxed);
	atomic_fetch_sub_explicit(&s->nservicing, 1, memory_order_relaxed);
	head = atomic_load_explicit(&s->prepared, memory_order_relaxed);
	do
		t->next_prepared = head;
	/* release: pairs with the manager's acquire pop; next_prepared */
	while (!atomic_compare_exchange_weak_explicit(&s->prepared, &head, t,
						      memory_order_release,
						      memory_order_relaxed));
	/* acquire: pairs with the manager's release of is_servicing */
	while (atomic_load_explicit(&t->is_servicing, memory_order_acquire) ==
	       RCL_PREPARED)
		ll_futex_wait(&t->is_servicing, RCL_PREPARED, NULL,
			      CLOCK_MONOTONIC);
}

/* Slow path (thesis Alg. 10 l.23-29); true if we left the pool. */
static bool slow_path(struct rcl_server *s, struct rcl_sthread *t)
{
	RCL_STAT_INC(t->st.slow_path);
	if (rcl_nfree(s) <= 1) {
		/* the others are inside sections: let them run */
		sched_yield();
		return false;
	}
	leave_pool(s, t);
	return true;
}

/* A servicing thread only ends by returning from rcl_servicing_main(),
 * which clears its key first; a thread that ends while the key is set
 * was ended by a section (pthread_exit, or a cancellation): its client
 * and every thread waiting for that lock would wait forever. */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void section_exit(void *arg)
{
	struct rcl_sthread *t = arg;
	/* the request is not complete, so its slot still names the lock */
	struct rcl_lock *l =
		t->req ? rcl_req_lock(atomic_load_explicit(
				 &t->req->lock, memory_order_relaxed))
		       : NULL;

	ll_fatal("a critical section of RCL lock %p ended its servicing "
		 "thread (pthread_exit or cancellation inside a section)",
		 (void *)l);
}

static void exit_key_create(void)
{
	if (pthread_key_create(&exit_key, section_exit) != 0)
		ll_fatal("cannot create the servicing threads' exit key");
}

void *rcl_servicing_main(void *arg)
{
	struct rcl_sthread *t = arg;
	struct rcl_server *s = t->srv;
	uintptr_t me = rcl_token();
	struct idle_state is = {0, 0, 0};
	unsigned int served;

	/* acquire: pairs with the release in rcl_pool_add() */
	while (!atomic_load_explicit(&t->linked, memory_order_acquire))
		ll_futex_wait(&t->linked, 0, NULL, CLOCK_MONOTONIC);
	rcl_self = t;
	pthread_once(&exit_once, exit_key_create);
	if (pthread_setspecific(exit_key, t) != 0)
		ll_fatal("cannot set the servicing thread's exit key");
	atomic_store_explicit(&t->tid, (int)syscall(SYS_gettid),
			      memory_order_relaxed);
	/* acquire: pairs with the release that published the server */
	while (atomic_load_explicit(&s->state, memory_order_acquire) ==
	       RCL_RUNNING) {
		atomic_store_explicit(&s->is_alive, 1, memory_order_relaxed);
		atomic_store_explicit(
			&t->timestamp,
			atomic_load_explicit(&s->timestamp,
					     memory_order_relaxed),
			memory_order_relaxed);
		served = counted_sweep(s, t, me);
		if (atomic_load_explicit(&s->nservicing, memory_order_relaxed) >
			    1 &&
		    slow_path(s, t)) {
			is.since = 0;
			continue;
		}
		after_sweep(s, t, served, &is);
	}
	let_go(t, me);
	pthread_setspecific(exit_key, NULL);
	/* its structure may outlive it (a stop that left it to finish) */
	atomic_store_explicit(&t->tid, 0, memory_order_relaxed);
	return NULL;
}
