/* SPDX-License-Identifier: MIT */
/*
 * ticket and ticket_stp: the ticket lock (Reed and Kanodia, CACM 1979;
 * Mellor-Crummey and Scott, ACM TOCS 1991, Fig. 2).
 *
 * Design: an arriving thread takes a ticket with fetch-and-add on @next
 * and waits until @serving shows it; unlock advances @serving.  Handover
 * is FIFO.  All waiters watch the same word, so each release costs one
 * miss per waiter (the queue locks avoid that).  @next and @serving sit on
 * separate lines: arrivals do not disturb the waiters' copy of @serving.
 *
 * Lock words: (next, serving), free when next == serving; tickets go in
 * steps of TICKET_STEP = 2 because bit 0 of @serving is the futex sleeper
 * bit (LL_SLEEPER, ll_wait.h);
 *   lock    (n, s) -> (n + 2, s), wait for serving == n;
 *   trylock (s, s) -> (s + 2, s) by CAS on next, read serving first;
 *   unlock  (n, s) -> (n, s + 2) by exchange (ll_wake_store).
 * 32-bit counters wrap harmlessly: only equality is tested.
 *
 * Waiting: ticket spins (ll_wait_while_val with LL_WAIT_SPIN: pause, then
 * yield in very long waits); ticket_stp spins LL_SPIN_BUDGET polls, then
 * sleeps on a futex on @serving.  Every sleeper is woken at each release
 * (they all sleep on the one word) and the ones whose turn has not come
 * sleep again.  Unlock touches the lock no more after its exchange, so a
 * woken thread may destroy it at once.  Both variants share this code;
 * the policy is a compile-time constant of each ops function.
 *
 * The owner's token is kept next to @serving so that unlock by a
 * non-owner is refused (EPERM).  Memory: 2 lines per lock, nothing per
 * thread.  Needs only C11 acquire/release.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

#define TICKET_STEP 2u /* bit 0 of @serving is LL_SLEEPER */

struct ticket_lock {
	/* written by arriving threads */
	_Atomic uint32_t next LL_ALIGNED;
	struct ll_gate gate; /* ticket_stp only: see ll_wait.h */
	/* written by the holder, read by waiters */
	_Atomic uint32_t serving LL_ALIGNED; /* ticket | LL_SLEEPER */
	_Atomic uintptr_t owner;	     /* holder's token, 0 when free */
	unsigned int duty;		     /* ticket_stp: LL_GATE_DUTY_* */
} LL_ALIGNED;

static_assert(sizeof(struct ticket_lock) == 2 * LL_CACHELINE,
	      "arrivals and handover on separate lines");

/* Returns 0 or ENOMEM. */
static int ticket_init(void **impl, const liblock_attr_t *attr)
{
	struct ticket_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->next, 0);
	atomic_init(&l->serving, 0);
	atomic_init(&l->owner, 0);
	ll_gate_init(&l->gate, ll_gate_cap());
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held or waited for. */
static int ticket_destroy(void *impl)
{
	struct ticket_lock *l = impl;

	if (atomic_load_explicit(&l->next, memory_order_relaxed) !=
	    (atomic_load_explicit(&l->serving, memory_order_relaxed) &
	     ~LL_SLEEPER))
		return EBUSY;
	ll_free(l);
	return 0;
}

/* Blocks until served (FIFO), waiting under @policy.  Returns 0. */
static inline int ticket_lock_policy(struct ticket_lock *l,
				     enum ll_wait_policy policy)
{
	/* relaxed: the acquire is the load of @serving below */
	uint32_t me = atomic_fetch_add_explicit(&l->next, TICKET_STEP,
						memory_order_relaxed);
	/* acquire: pairs with the release in ll_wake_store() */
	uint32_t s = atomic_load_explicit(&l->serving, memory_order_acquire) &
		     ~LL_SLEEPER;

	/* acquire (inside) as above */
	while (s != me)
		s = ll_wait_while_val(&l->serving, s, policy);
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

/* Returns 0, or EBUSY if held or waited for. */
static int ticket_trylock(void *impl)
{
	struct ticket_lock *l = impl;
	/* acquire: pairs with the release in unlock, so that if the lock
	 * is free we see the last section's writes */
	uint32_t s = atomic_load_explicit(&l->serving, memory_order_acquire) &
		     ~LL_SLEEPER;
	uint32_t n = s;

	/* (s, s) -> (s + 2, s).  serving <= next and serving never goes
	 * back, so next == s at the CAS means serving is still s. */
	if (!atomic_compare_exchange_strong_explicit(
		    &l->next, &n, s + TICKET_STEP, memory_order_relaxed,
		    memory_order_relaxed))
		return EBUSY;
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	l->duty = LL_GATE_DUTY_NONE;
	return 0;
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static inline int ticket_unlock_policy(struct ticket_lock *l,
				       enum ll_wait_policy policy)
{
	uint32_t s;
	bool wake;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	/* before the release: afterwards the lock may be gone */
	wake = policy != LL_WAIT_SPIN && ll_gate_leave(&l->gate, l->duty);
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	/* relaxed: only the holder changes the ticket part */
	s = atomic_load_explicit(&l->serving, memory_order_relaxed) &
	    ~LL_SLEEPER;
	/* (n, s) -> (n, s + 2).  release (inside): the section's writes go
	 * with the lock.  Last access to the lock. */
	ll_wake_store(&l->serving, s + TICKET_STEP, policy, INT_MAX);
	if (ll_unlikely(wake))
		ll_gate_wake(&l->gate);
	return 0;
}

/* The ops entries: the two policies of the shared code. */
static int ticket_lock(void *impl)
{
	return ticket_lock_policy(impl, LL_WAIT_SPIN);
}

static int ticket_unlock(void *impl)
{
	return ticket_unlock_policy(impl, LL_WAIT_SPIN);
}

/* A free lock is taken at once; otherwise the thread takes a ticket only
 * once the admission gate lets it (ll_wait.h). */
static int ticket_stp_lock(void *impl)
{
	struct ticket_lock *l = impl;

	if (ll_likely(ticket_trylock(impl) == 0))
		return 0;
	ll_gate_enter(&l->gate);
	ticket_lock_policy(l, LL_WAIT_SPIN_THEN_PARK);
	l->duty = ll_gate_acquired(&l->gate);
	return 0;
}

static struct ll_gate *ticket_gate(void *impl)
{
	return &((struct ticket_lock *)impl)->gate;
}

static int ticket_stp_unlock(void *impl)
{
	return ticket_unlock_policy(impl, LL_WAIT_SPIN_THEN_PARK);
}

const struct ll_ops ll_ticket_ops = {
	.name = "ticket",
	.summary =
		"ticket lock: fetch-and-add a ticket, spin until served (FIFO)",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = ticket_init,
	.destroy = ticket_destroy,
	.lock = ticket_lock,
	.trylock = ticket_trylock,
	.unlock = ticket_unlock,
};

const struct ll_ops ll_ticket_stp_ops = {
	.name = "ticket_stp",
	.summary = "ticket lock, spin then park; surplus threads park outside",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER | LIBLOCK_CAP_PARK,
	.init = ticket_init,
	.destroy = ticket_destroy,
	.lock = ticket_stp_lock,
	.trylock = ticket_trylock,
	.unlock = ticket_stp_unlock,
	.gate = ticket_gate,
};
