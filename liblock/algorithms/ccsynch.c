/* SPDX-License-Identifier: MIT */
/*
 * ccsynch: CC-Synch (Fatourou and Kallimanis, PPoPP 2012; thesis §3.8,
 * Alg. 7).
 *
 * The lock is the tail of a queue that always ends with an empty node.
 * A thread swaps its spare node in as the new tail, writes its section
 * into the node it got back (the old tail), links it, and waits on that
 * node's `wait`.  The thread whose node is released without `completed`
 * is the combiner: it runs up to MAX_COMBINER_CS sections along the
 * queue, answers each one, and hands the role to the next node by
 * clearing its `wait`.  Each thread keeps the node it got back as its
 * spare: nodes migrate between threads, one per thread plus one per lock.
 *
 * Additions to the paper: a lock-mode entry (lock node marked by
 * ll_comb_lock_node; a combiner stops before it and hands the role over) used
 * by condition variables: a section that waits hands the role to the node
 * after its own (whose owner then combines), sleeps, enters in lock mode,
 * finishes, answers its requester and hands on.  No public lock/trylock:
 * trylock would read the tail node, which a thread may free at exit.
 * Waiters spin, then yield.
 *
 * Needs only C11 acquire/release.
 */
#include "combining_int.h"

#include <errno.h>

struct cc_lock {
	struct ll_lock_key key; /* read-only */
	unsigned int max_cs;	/* read-only: MAX_COMBINER_CS */
	_Atomic(struct ll_comb_node *) tail LL_ALIGNED;
	/* written by the lock-mode holder */
	struct ll_comb_node *holder LL_ALIGNED;
	_Atomic uintptr_t owner; /* its token, else 0 */
} LL_ALIGNED;

static_assert(sizeof(struct cc_lock) == 3 * LL_CACHELINE, "three lines");

struct cc_pass {
	struct ll_comb_pass base;
	struct ll_comb_node *next; /* node after the one whose section runs */
};

/* Returns 0 or ENOMEM. */
static int cc_init(void **impl, const liblock_attr_t *attr)
{
	struct cc_lock *l = ll_zalloc(sizeof(*l));
	struct ll_comb_node *dummy = ll_zalloc(sizeof(*dummy));

	(void)attr;
	if (!l || !dummy) {
		ll_free(l);
		ll_free(dummy);
		return ENOMEM;
	}
	ll_lock_key_init(&l->key);
	l->max_cs = ll_comb_max_cs();
	atomic_init(&dummy->wait, 0); /* the first comer combines */
	atomic_init(&l->tail, dummy);
	*impl = l;
	return 0;
}

/* Returns EBUSY if a section or a lock-mode holder is in progress. */
static int cc_destroy(void *impl)
{
	struct cc_lock *l = impl;
	/* acquire: pairs with the exchange in cc_enqueue() */
	struct ll_comb_node *t =
		atomic_load_explicit(&l->tail, memory_order_acquire);

	/* idle: the last pass handed the role to the empty tail node;
	 * acquire pairs with that hand-off (ll_comb_hand_on) */
	if (atomic_load_explicit(&t->wait, memory_order_acquire) != 0)
		return EBUSY;
	ll_free(t);
	ll_free(l);
	return 0;
}

/* Thread exit: the spare is referenced by nobody else (a combiner reads
 * a node's next before it answers the node, then never touches it). */
static void cc_spare_release(void *node)
{
	ll_free(node);
}

/* Enqueue a section; returns the node to wait on (the caller's now). */
static struct ll_comb_node *cc_enqueue(struct cc_lock *l, liblock_fn_t fn,
				       void *ctx)
{
	struct ll_comb_slot *s = ll_comb_slot(&l->key, cc_spare_release);
	struct ll_comb_node *next = s->node, *cur;

	if (ll_unlikely(!next) && !(next = ll_zalloc(sizeof(*next))))
		ll_fatal("out of memory for a CC-Synch node");
	atomic_store_explicit(&next->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&next->wait, 1, memory_order_relaxed);
	next->completed = false;
	/* acq_rel: release publishes next's reset to the thread that gets
	 * it; acquire makes cur's reset by the previous swapper ours */
	cur = atomic_exchange_explicit(&l->tail, next, memory_order_acq_rel);
	cur->fn = fn;
	cur->ctx = ctx;
	/* release: a combiner that acquires cur->next sees fn and ctx */
	atomic_store_explicit(&cur->next, next, memory_order_release);
	s->node = cur;
	return cur;
}

/* Lock mode: enqueue a lock node; combiners stop before it. */
static int cc_lock(void *impl)
{
	struct cc_lock *l = impl;
	struct ll_comb_node *n = cc_enqueue(l, ll_comb_lock_node, NULL);

	ll_spin_until(&n->wait, 0, LL_SPIN_BUDGET);
	l->holder = n;
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	return 0;
}

/* Returns EPERM if the caller did not enter in lock mode. */
static int cc_unlock(void *impl)
{
	struct cc_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	/* relaxed: we linked holder->next ourselves in cc_enqueue() */
	ll_comb_hand_on(
		atomic_load_explicit(&l->holder->next, memory_order_relaxed));
	return 0;
}

/* Combiner: run up to max_cs sections from @own on, hand the role on.
 * Stops before a lock node and before another thread's section whose
 * function waits (ll_comb_waits): its owner runs it as the next combiner. */
static void *cc_combine(struct cc_lock *l, struct ll_comb_node *own)
{
	struct ll_comb_node *tmp = own, *nx;
	unsigned int counter = 0;
	struct cc_pass p;
	void *own_ret = NULL;

	ll_comb_pass_begin(&p.base, l);
	/* acquire: pairs with the release link in cc_enqueue(): fn, ctx */
	while (counter < l->max_cs &&
	       (nx = atomic_load_explicit(&tmp->next, memory_order_acquire)) &&
	       tmp->fn != ll_comb_lock_node &&
	       (tmp == own || !ll_comb_waits(tmp->fn))) {
		counter++;
		p.next = nx;
		if (ll_comb_run_node(&p.base, tmp, own, &own_ret)) {
			/* we re-entered in lock mode: leave as a holder */
			ll_comb_pass_end(&p.base);
			cc_unlock(l);
			return own_ret;
		}
		tmp = nx;
	}
	ll_comb_pass_end(&p.base);
	ll_comb_hand_on(tmp);
	return own_ret;
}

/* Runs fn(ctx) in mutual exclusion, here as the combiner or on another
 * thread's pass, and returns its result.  Aborts on ENOMEM (exec has no
 * error return). */
static void *cc_exec(void *impl, liblock_fn_t fn, void *ctx)
{
	struct cc_lock *l = impl;
	struct ll_comb_node *cur = cc_enqueue(l, fn, ctx);

	ll_spin_until(&cur->wait, 0, LL_SPIN_BUDGET);
	if (cur->completed)
		return cur->ret;
	return cc_combine(l, cur);
}

/* A section waits: the node after it becomes the combiner; the section's
 * own node is left waiting, and no later pass walks it again. */
static void cc_detach(void *impl, struct ll_comb_pass *base)
{
	(void)impl;
	ll_comb_hand_on(((struct cc_pass *)base)->next);
}

/* Inside a section of @impl: see ll_comb_cond_wait().  Returns 0,
 * ETIMEDOUT, or EPERM outside one. */
static int cc_cond_wait(void *impl, liblock_cond_t *cond,
			const struct timespec *abstime)
{
	return ll_comb_cond_wait(impl, cond, abstime, cc_detach, cc_lock,
				 cc_unlock);
}

const struct ll_ops ll_ccsynch_ops = {
	.name = "ccsynch",
	.summary =
		"CC-Synch: queue-based combining, the combiner walks the queue",
	.caps = LIBLOCK_CAP_DELEGATION,
	.init = cc_init,
	.destroy = cc_destroy,
	.exec = cc_exec,
	.cond_wait = cc_cond_wait,
};
