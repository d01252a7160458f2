/* SPDX-License-Identifier: MIT */
/*
 * mcs and mcs_stp: the MCS queue lock (Mellor-Crummey and Scott, ACM TOCS
 * 1991; thesis Alg. 3).
 *
 * Design: the lock is a pointer to the tail of a queue of per-thread
 * nodes.  A thread appends its node with one exchange on the tail, links
 * itself behind its predecessor, and waits on a flag in its *own* node, so
 * each waiter spins on a line nobody else reads.  Unlock clears the
 * successor's flag (FIFO handover), or swings the tail back to NULL when
 * nobody is queued.  Nodes are per (lock, thread), allocated lazily and
 * cache-line aligned through ll_tnode(); they never migrate.
 *
 * Lock words: (tail, holder).  @tail: NULL -> me by exchange (lock) or by
 * CAS from NULL (trylock); me -> NULL by CAS in unlock when alone.  The
 * holder's line records its token and node, written after acquiring and
 * read back by unlock, so unlock needs no node lookup and can refuse a
 * non-owner (EPERM).
 *
 * Waiting: mcs spins (pause, then yield in very long waits); mcs_stp spins
 * LL_SPIN_BUDGET polls, then sleeps on a futex on its node's flag.  The
 * flag carries the sleeper bit (ll_wait_while_val/ll_wake_store), because
 * a woken successor may finish, exit and free its node, or destroy the
 * lock, before unlock could read anything else.  One file, two ops
 * tables; the policy is a compile-time constant.
 *
 * Memory: 2 lines per lock, 1 line per (lock, thread) that used it.
 * Needs only C11 acquire/release.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

/* Flag values keep bit 0 clear: it is LL_SLEEPER. */
enum { MCS_GRANTED = 0, MCS_WAITING = 2 };

struct mcs_node {
	_Atomic(struct mcs_node *) next; /* written by the successor */
	_Atomic uint32_t locked;	 /* MCS_WAITING until handed over */
} LL_ALIGNED;

struct mcs_lock {
	/* written by every arriving thread */
	_Atomic(struct mcs_node *) tail LL_ALIGNED;
	struct ll_gate gate; /* mcs_stp only: see ll_wait.h */
	/* written by the holder */
	_Atomic uintptr_t owner LL_ALIGNED; /* holder's token, 0 when free */
	struct mcs_node *holder;	    /* holder's node */
	unsigned int duty;		    /* mcs_stp: LL_GATE_DUTY_* */
	struct ll_lock_key key;
} LL_ALIGNED;

static_assert(sizeof(struct mcs_node) == LL_CACHELINE, "one line per node");
static_assert(sizeof(struct mcs_lock) == 2 * LL_CACHELINE,
	      "tail and holder on separate lines");

/* Returns 0 or ENOMEM. */
static int mcs_init(void **impl, const liblock_attr_t *attr)
{
	struct mcs_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->tail, NULL);
	atomic_init(&l->owner, 0);
	ll_gate_init(&l->gate, ll_gate_cap());
	ll_lock_key_init(&l->key);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held or waited for.  The calling
 * thread's node goes with the lock; other threads free theirs when they
 * exit (the lock's key is never reused). */
static int mcs_destroy(void *impl)
{
	struct mcs_lock *l = impl;

	/* acquire: pairs with the last unlock's release CAS (tail -> NULL) */
	if (atomic_load_explicit(&l->tail, memory_order_acquire) != NULL)
		return EBUSY;
	ll_tnode_forget(&l->key);
	ll_free(l);
	return 0;
}

static inline void mcs_set_holder(struct mcs_lock *l, struct mcs_node *me)
{
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	l->holder = me;
	l->duty = LL_GATE_DUTY_NONE;
}

/* Queued behind @pred: link in and wait for the handover.  Out of line,
 * so that the uncontended path saves no registers. */
static __attribute__((noinline)) void
mcs_wait(struct mcs_node *pred, struct mcs_node *me, enum ll_wait_policy policy)
{
	/* release: pairs with the acquire load of ->next in unlock */
	atomic_store_explicit(&pred->next, me, memory_order_release);
	/* acquire (inside): pairs with the handover in unlock */
	ll_wait_while_val(&me->locked, MCS_WAITING, policy);
}

/* Blocks until handed the lock (FIFO), waiting under @policy.  Returns 0,
 * or ENOMEM if this thread's node cannot be allocated. */
static inline int mcs_lock_policy(struct mcs_lock *l,
				  enum ll_wait_policy policy)
{
	struct mcs_node *me = ll_tnode(&l->key, sizeof(*me)), *pred;

	if (ll_unlikely(!me))
		return ENOMEM;
	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&me->locked, MCS_WAITING, memory_order_relaxed);
	/* tail: pred -> me.  release: a successor that gets @me from the
	 * tail sees the two stores above; acquire: pairs with the release
	 * CAS of an unlock that left the queue empty */
	pred = atomic_exchange_explicit(&l->tail, me, memory_order_acq_rel);
	if (ll_unlikely(pred != NULL))
		mcs_wait(pred, me, policy);
	mcs_set_holder(l, me);
	return 0;
}

/* Returns 0, EBUSY if held or waited for, or ENOMEM. */
static int mcs_trylock(void *impl)
{
	struct mcs_lock *l = impl;
	struct mcs_node *me = ll_tnode(&l->key, sizeof(*me)), *expected = NULL;

	if (ll_unlikely(!me))
		return ENOMEM;
	if (atomic_load_explicit(&l->tail, memory_order_relaxed) != NULL)
		return EBUSY;
	atomic_store_explicit(&me->next, NULL, memory_order_relaxed);
	/* tail: NULL -> me.  acq_rel: as the exchange in lock */
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &expected, me,
						     memory_order_acq_rel,
						     memory_order_relaxed))
		return EBUSY;
	mcs_set_holder(l, me);
	return 0;
}

/* A successor swapped the tail but has not linked itself yet: it is
 * between its exchange and its ->next store.  Returns it once linked. */
static __attribute__((noinline)) struct mcs_node *
mcs_wait_link(struct mcs_node *me)
{
	struct mcs_node *succ;
	unsigned int polls = 0;

	/* acquire: pairs with the successor's release store of ->next */
	while (!(succ = atomic_load_explicit(&me->next, memory_order_acquire)))
		ll_spin_poll(&polls);
	return succ;
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static inline int mcs_unlock_policy(struct mcs_lock *l,
				    enum ll_wait_policy policy)
{
	struct mcs_node *me, *succ;
	bool wake;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	me = l->holder;
	/* before the release: afterwards the lock may be gone */
	wake = policy != LL_WAIT_SPIN && ll_gate_leave(&l->gate, l->duty);
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	/* acquire: pairs with the successor's release store of ->next */
	succ = atomic_load_explicit(&me->next, memory_order_acquire);
	if (!succ) {
		struct mcs_node *expected = me;

		/* tail: me -> NULL when nobody queued.  release: the next
		 * thread to swap the tail acquires the section's writes */
		if (ll_likely(atomic_compare_exchange_strong_explicit(
			    &l->tail, &expected, NULL, memory_order_release,
			    memory_order_relaxed)))
			goto out;
		succ = mcs_wait_link(me);
	}
	/* release (inside): the section's writes go with the lock.  Last
	 * access to @succ and to the lock. */
	ll_wake_store(&succ->locked, MCS_GRANTED, policy, 1);
out:
	if (ll_unlikely(wake))
		ll_gate_wake(&l->gate);
	return 0;
}

static struct ll_gate *mcs_gate(void *impl)
{
	return &((struct mcs_lock *)impl)->gate;
}

/* The ops entries: the two policies of the shared code. */
static int mcs_lock(void *impl)
{
	return mcs_lock_policy(impl, LL_WAIT_SPIN);
}

static int mcs_unlock(void *impl)
{
	return mcs_unlock_policy(impl, LL_WAIT_SPIN);
}

/* A free lock is taken at once; otherwise the thread queues only once
 * the admission gate lets it (ll_wait.h), so the queue holds no more
 * waiters than there are CPUs to run them. */
static int mcs_stp_lock(void *impl)
{
	struct mcs_lock *l = impl;
	int rc = mcs_trylock(impl);

	if (ll_likely(rc != EBUSY))
		return rc;
	ll_gate_enter(&l->gate);
	if (ll_unlikely((rc = mcs_lock_policy(l, LL_WAIT_SPIN_THEN_PARK)))) {
		ll_gate_cancel(&l->gate);
		return rc;
	}
	l->duty = ll_gate_acquired(&l->gate);
	return 0;
}

static int mcs_stp_unlock(void *impl)
{
	return mcs_unlock_policy(impl, LL_WAIT_SPIN_THEN_PARK);
}

const struct ll_ops ll_mcs_ops = {
	.name = "mcs",
	.summary = "MCS queue lock: FIFO, each waiter spins on its own node",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = mcs_init,
	.destroy = mcs_destroy,
	.lock = mcs_lock,
	.trylock = mcs_trylock,
	.unlock = mcs_unlock,
};

const struct ll_ops ll_mcs_stp_ops = {
	.name = "mcs_stp",
	.summary =
		"MCS queue lock, spin then park; surplus threads park outside",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER | LIBLOCK_CAP_PARK,
	.init = mcs_init,
	.destroy = mcs_destroy,
	.lock = mcs_stp_lock,
	.trylock = mcs_trylock,
	.unlock = mcs_stp_unlock,
	.gate = mcs_gate,
};
