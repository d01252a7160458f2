/* SPDX-License-Identifier: MIT */
/*
 * fc: flat combining (Hendler, Incze, Shavit, Tzafrir, SPAA 2010; thesis
 * §3.7, Alg. 6).
 *
 * Each thread publishes its section (fn, ctx) in its node of a list; the
 * thread that takes the combiner lock (`busy`) runs its own section, then
 * every pending section of the list, and writes each result back.  Nodes
 * are pushed at the head with a CAS by their owner; only the combiner
 * unlinks, every CLEANUP_FREQUENCY passes, the nodes idle for more than
 * CLEANUP_OLD_THRESHOLD passes (an unlinked owner pushes itself again).
 *
 * Additions to the paper: `busy` doubles as a lock word (lock/trylock/
 * unlock take and drop it without combining), and a section that waits on
 * a condition variable detaches its pass: its node is marked TAKEN (no
 * other combiner runs it), `busy` is dropped, and after the wait the
 * thread retakes `busy`, finishes the section, answers its requester and
 * stops combining.  Waiters spin, then yield.
 *
 * Needs only C11 acquire/release.
 */
#include "combining_int.h"

#include <errno.h>

#define CLEANUP_FREQUENCY 100	 /* passes between two clean-ups */
#define CLEANUP_OLD_THRESHOLD 10 /* passes a node may stay idle listed */

enum { FC_LISTED = 1u, FC_DEAD = 2u };

struct fc_node {
	/* request: written by the owner; the combiner clears fn */
	_Atomic(liblock_fn_t) fn; /* NULL: answered; fc_taken: running */
	void *ctx;
	/* response and list links: written by the combiner */
	void *ret LL_ALIGNED;
	uint64_t age; /* pass that last served this node */
	_Atomic(struct fc_node *) next;
	_Atomic uint32_t state; /* FC_LISTED (list holds it) | FC_DEAD */
} LL_ALIGNED;

static_assert(sizeof(struct fc_node) == 2 * LL_CACHELINE, "two lines");

struct fc_lock {
	struct ll_lock_key key;		  /* read-only */
	_Atomic uint32_t busy LL_ALIGNED; /* combiner lock: 0 free, 1 held */
	_Atomic(struct fc_node *) head LL_ALIGNED; /* pushed by everyone */
	/* written by the holder of busy */
	uint64_t count LL_ALIGNED; /* combining passes so far */
	_Atomic uintptr_t owner;   /* lock-mode holder's token, else 0 */
} LL_ALIGNED;

static_assert(sizeof(struct fc_lock) == 4 * LL_CACHELINE, "four lines");

struct fc_pass {
	struct ll_comb_pass base;
	struct fc_node *cur; /* node whose section is running */
};

/* Marks a section a detached combiner is running: never called. */
static void *fc_taken(void *ctx)
{
	return ctx;
}

/* Returns 0 or ENOMEM. */
static int fc_init(void **impl, const liblock_attr_t *attr)
{
	struct fc_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	ll_lock_key_init(&l->key);
	*impl = l;
	return 0;
}

/* Thread exit: free the node now if no list holds it, else leave it to
 * the combiner that unlinks it (or to destroy).  acq_rel: pairs with the
 * RMW that clears FC_LISTED in fc_unlisted(). */
static void fc_node_release(void *node)
{
	struct fc_node *n = node;

	if (!(atomic_fetch_or_explicit(&n->state, FC_DEAD,
				       memory_order_acq_rel) &
	      FC_LISTED))
		ll_free(n);
}

/* The list dropped @n: free it if its owner is gone. */
static void fc_unlisted(struct fc_node *n)
{
	/* acq_rel: pairs with the RMW in fc_node_release() */
	if (atomic_fetch_and_explicit(&n->state, ~FC_LISTED,
				      memory_order_acq_rel) &
	    FC_DEAD)
		ll_free(n);
}

/* Caller holds busy (or destroys the lock).  Returns EBUSY if held. */
static int fc_destroy(void *impl)
{
	struct fc_lock *l = impl;
	struct fc_node *n, *next;

	/* acquire: pairs with fc_release(), the last pass's edits are ours */
	if (atomic_load_explicit(&l->busy, memory_order_acquire) != 0)
		return EBUSY;
	/* acquire: pairs with the release of the pushes */
	for (n = atomic_load_explicit(&l->head, memory_order_acquire); n;
	     n = next) {
		next = atomic_load_explicit(&n->next, memory_order_relaxed);
		fc_unlisted(n);
	}
	ll_free(l);
	return 0;
}

static struct fc_node *fc_my_node(struct fc_lock *l)
{
	struct ll_comb_slot *s = ll_comb_slot(&l->key, fc_node_release);

	if (ll_unlikely(!s->node) &&
	    !(s->node = ll_zalloc(sizeof(struct fc_node))))
		ll_fatal("out of memory for a flat-combining node");
	return s->node;
}

/* Push @n (owned by the caller, not listed) at the head. */
static void fc_publish(struct fc_lock *l, struct fc_node *n)
{
	struct fc_node *h =
		atomic_load_explicit(&l->head, memory_order_relaxed);

	atomic_fetch_or_explicit(&n->state, FC_LISTED, memory_order_relaxed);
	do
		atomic_store_explicit(&n->next, h, memory_order_relaxed);
	/* release: a combiner that reads head (acquire) sees n->next */
	while (!atomic_compare_exchange_weak_explicit(
		&l->head, &h, n, memory_order_release, memory_order_relaxed));
}

static inline bool fc_try(struct fc_lock *l)
{
	uint32_t expected = 0;

	/* (0) -> (1).  acquire: pairs with the release in fc_release() */
	return atomic_load_explicit(&l->busy, memory_order_relaxed) == 0 &&
	       atomic_compare_exchange_strong_explicit(&l->busy, &expected, 1,
						       memory_order_acquire,
						       memory_order_relaxed);
}

/* (1) -> (0): hand the combiner role to whoever takes busy next. */
static inline void fc_release(struct fc_lock *l)
{
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	/* release: the sections' writes and the list edits go with it */
	atomic_store_explicit(&l->busy, 0, memory_order_release);
}

/* Unlink @n (after @pred, or the head if @pred is NULL).  A head that
 * moved under us is kept for a later clean-up. */
static bool fc_unlink(struct fc_lock *l, struct fc_node *pred,
		      struct fc_node *n, struct fc_node *next)
{
	struct fc_node *expected = n;

	if (pred) {
		atomic_store_explicit(&pred->next, next, memory_order_relaxed);
		return true;
	}
	/* relaxed: the list is ordered for the next combiner by busy */
	return atomic_compare_exchange_strong_explicit(
		&l->head, &expected, next, memory_order_relaxed,
		memory_order_relaxed);
}

/* Caller holds busy: unlink nodes idle for CLEANUP_OLD_THRESHOLD passes
 * and the nodes of exited threads. */
static void fc_cleanup(struct fc_lock *l)
{
	struct fc_node *pred = NULL, *next, *n;

	/* acquire: pairs with the release of the pushes */
	for (n = atomic_load_explicit(&l->head, memory_order_acquire); n;
	     n = next) {
		next = atomic_load_explicit(&n->next, memory_order_relaxed);
		/* acquire: a section published after this check sees
		 * FC_LISTED cleared and its owner pushes the node again */
		if (atomic_load_explicit(&n->fn, memory_order_acquire) ==
			    NULL &&
		    (n->age + CLEANUP_OLD_THRESHOLD < l->count ||
		     atomic_load_explicit(&n->state, memory_order_relaxed) &
			     FC_DEAD) &&
		    fc_unlink(l, pred, n, next)) {
			fc_unlisted(n);
			continue;
		}
		pred = n;
	}
}

/* Caller holds busy: answer @n's section with @r. */
static void fc_answer(struct fc_lock *l, struct fc_node *n, void *r)
{
	n->ret = r;
	n->age = l->count;
	/* release: the owner's acquire of fn == NULL sees ret */
	atomic_store_explicit(&n->fn, NULL, memory_order_release);
}

/* Caller holds busy: run @n's pending section, if any, as pass @p.
 * Returns false if @n had none (answered, or run by a detached pass) or
 * if it is another thread's (@foreign) section of a function that waits
 * on condition variables: its owner will run it. */
static bool fc_serve(struct fc_lock *l, struct fc_pass *p, struct fc_node *n,
		     bool foreign, void **r)
{
	/* acquire: pairs with the owner's release of fn, so ctx is seen */
	liblock_fn_t fn = atomic_load_explicit(&n->fn, memory_order_acquire);

	if (fn == NULL || fn == fc_taken || (foreign && ll_comb_waits(fn)))
		return false;
	p->cur = n;
	p->base.fn = fn;
	*r = fn(n->ctx);
	fc_answer(l, n, *r);
	return true;
}

/*
 * Caller holds busy: one combining pass, own section first, then the
 * list.  Drops busy.  Returns true with the own result in *@own_ret, or
 * false if a detached pass elsewhere still runs the own section.
 */
static bool fc_combine(struct fc_lock *l, struct fc_node *own, void **own_ret)
{
	struct fc_pass p;
	struct fc_node *n, *next;
	bool done;
	void *r;

	l->count++;
	ll_comb_pass_begin(&p.base, l);
	/* acquire: a combiner that answered us released ret with fn */
	if (atomic_load_explicit(&own->fn, memory_order_acquire) == NULL) {
		*own_ret = own->ret;
		done = true;
	} else {
		done = fc_serve(l, &p, own, false, own_ret);
	}
	/* acquire: pairs with the release of the pushes */
	n = atomic_load_explicit(&l->head, memory_order_acquire);
	for (; n && !p.base.detached; n = next) {
		next = atomic_load_explicit(&n->next, memory_order_relaxed);
		if (n != own)
			fc_serve(l, &p, n, true, &r);
	}
	if (!p.base.detached && l->count % CLEANUP_FREQUENCY == 0)
		fc_cleanup(l);
	ll_comb_pass_end(&p.base);
	fc_release(l);
	return done;
}

/* Run fn(ctx) in mutual exclusion, here or on the current combiner. */
static void *fc_exec(void *impl, liblock_fn_t fn, void *ctx)
{
	struct fc_lock *l = impl;
	struct fc_node *n = fc_my_node(l);
	unsigned int spins = 0;
	void *r;

	n->ctx = ctx;
	/* release: a combiner that acquires fn sees ctx */
	atomic_store_explicit(&n->fn, fn, memory_order_release);
	for (;;) {
		/* acquire: pairs with fc_answer(), ret is then visible */
		if (atomic_load_explicit(&n->fn, memory_order_acquire) == NULL)
			return n->ret;
		/* acquire: pairs with fc_unlisted(); the unlink is done */
		if (!(atomic_load_explicit(&n->state, memory_order_acquire) &
		      FC_LISTED))
			fc_publish(l, n);
		if (fc_try(l)) {
			if (fc_combine(l, n, &r))
				return r;
			spins = 0;
			continue;
		}
		ll_poll(&spins, LL_SPIN_BUDGET);
	}
}

/* Lock mode: take busy without combining; the pending sections wait. */
static int fc_lock(void *impl)
{
	struct fc_lock *l = impl;
	unsigned int spins = 0;

	while (!fc_try(l))
		ll_poll(&spins, LL_SPIN_BUDGET);
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	return 0;
}

/* Returns 0, or EBUSY if a combiner or a lock-mode holder has busy. */
static int fc_trylock(void *impl)
{
	struct fc_lock *l = impl;

	if (!fc_try(l))
		return EBUSY;
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	return 0;
}

/* Returns 0, or EPERM if the caller did not take the lock in lock mode. */
static int fc_unlock(void *impl)
{
	struct fc_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	fc_release(l);
	return 0;
}

/* A section of pass @base waits: keep its node from being run again by
 * the next combiner (its owner keeps waiting: fn stays non-NULL), and
 * drop busy so that the others' sections go on. */
static void fc_detach(void *impl, struct ll_comb_pass *base)
{
	struct fc_pass *p = (struct fc_pass *)base;

	/* relaxed: published to the next combiner by the release of busy */
	atomic_store_explicit(&p->cur->fn, fc_taken, memory_order_relaxed);
	fc_release(impl);
}

/* Inside a section of @impl (combined, or lock mode): see
 * ll_comb_cond_wait().  Returns 0, ETIMEDOUT, or EPERM outside one. */
static int fc_cond_wait(void *impl, liblock_cond_t *cond,
			const struct timespec *abstime)
{
	return ll_comb_cond_wait(impl, cond, abstime, fc_detach, fc_lock,
				 fc_unlock);
}

const struct ll_ops ll_fc_ops = {
	.name = "fc",
	.summary =
		"flat combining: a combiner thread runs the published sections",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_DELEGATION | LIBLOCK_CAP_OWNER,
	.init = fc_init,
	.destroy = fc_destroy,
	.lock = fc_lock,
	.trylock = fc_trylock,
	.unlock = fc_unlock,
	.exec = fc_exec,
	.cond_wait = fc_cond_wait,
};
