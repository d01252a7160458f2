/* SPDX-License-Identifier: MIT */
/*
 * dsmsynch: DSM-Synch (Fatourou and Kallimanis, PPoPP 2012; thesis
 * Alg. 8, in the thesis's corrected form).
 *
 * The lock is the tail of a queue of nodes (NULL: free).  Each thread
 * owns two nodes per lock and alternates between them, so that it only
 * ever spins on its own node.  A thread swaps its node in; with no
 * predecessor it is the combiner, otherwise it links itself and waits.
 * The combiner runs sections along the queue and stops at the node
 * before the last one, or after MAX_COMBINER_CS sections; then it either
 * swings the tail back to NULL or hands the role to the next node.
 * The paper's extra `tmp->next = NULL` before that hand-off is absent,
 * as in the authors' code: with it, updates are lost (thesis §3.8).
 *
 * Additions to the paper: lock mode (a node marked by ll_comb_lock_node; a
 * combiner stops before it), trylock as CAS(tail, NULL, node), and
 * condition variables: a section that waits ends the pass there (the
 * role goes to the node after it), sleeps, enters in lock mode, answers
 * its requester and hands on.  Node pairs of exited threads are freed by
 * a combiner at the start of a pass (every DSM_RECLAIM_PERIOD passes):
 * by then every earlier pass, which might still read them, has ended.
 *
 * Needs only C11 acquire/release.
 */
#include "combining_int.h"

#include <errno.h>

#define DSM_RECLAIM_PERIOD 100 /* passes between two reclaims */

enum { DSM_REGISTERED = 1u, DSM_ALIVE = 2u };

struct dsm_pair {
	struct ll_comb_node node[2];
	/* owner-private, then the lock's registry links */
	unsigned int toggle LL_ALIGNED;
	_Atomic(struct dsm_pair *) reg_next;
	_Atomic uint32_t state; /* DSM_REGISTERED | DSM_ALIVE */
} LL_ALIGNED;

static_assert(sizeof(struct dsm_pair) == 5 * LL_CACHELINE, "two nodes + 1");

struct dsm_lock {
	struct ll_lock_key key; /* read-only */
	unsigned int max_cs;	/* read-only: MAX_COMBINER_CS */
	_Atomic(struct ll_comb_node *) tail LL_ALIGNED;
	_Atomic(struct dsm_pair *) pairs LL_ALIGNED; /* registry */
	/* written by the combiner or the lock-mode holder */
	struct ll_comb_node *holder LL_ALIGNED;
	uint64_t passes;
	_Atomic uintptr_t owner; /* lock-mode holder's token, else 0 */
} LL_ALIGNED;

static_assert(sizeof(struct dsm_lock) == 4 * LL_CACHELINE, "four lines");

struct dsm_pass {
	struct ll_comb_pass base;
	struct ll_comb_node *cur; /* node whose section runs */
};

/* Returns 0 or ENOMEM. */
static int dsm_init(void **impl, const liblock_attr_t *attr)
{
	struct dsm_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	ll_lock_key_init(&l->key);
	l->max_cs = ll_comb_max_cs();
	*impl = l;
	return 0;
}

/* Returns EBUSY if a section or a lock-mode holder is in progress. */
static int dsm_destroy(void *impl)
{
	struct dsm_lock *l = impl;
	struct dsm_pair *pr, *next;

	/* acquire: pairs with the release CAS that emptied the queue */
	if (atomic_load_explicit(&l->tail, memory_order_acquire) != NULL)
		return EBUSY;
	/* acquire: pairs with the release of the registry pushes */
	for (pr = atomic_load_explicit(&l->pairs, memory_order_acquire); pr;
	     pr = next) {
		next = atomic_load_explicit(&pr->reg_next,
					    memory_order_relaxed);
		/* acq_rel: pairs with the RMW in dsm_pair_release() */
		if (!(atomic_fetch_and_explicit(&pr->state, ~DSM_REGISTERED,
						memory_order_acq_rel) &
		      DSM_ALIVE))
			ll_free(pr);
	}
	ll_free(l);
	return 0;
}

/* Thread exit: a destroyed lock left the pair to us; otherwise a
 * combiner frees it (dsm_reclaim). */
static void dsm_pair_release(void *pair)
{
	struct dsm_pair *pr = pair;

	/* acq_rel: pairs with dsm_destroy() and dsm_reclaim() */
	if (!(atomic_fetch_and_explicit(&pr->state, ~DSM_ALIVE,
					memory_order_acq_rel) &
	      DSM_REGISTERED))
		ll_free(pr);
}

static struct dsm_pair *dsm_my_pair(struct dsm_lock *l)
{
	struct ll_comb_slot *s = ll_comb_slot(&l->key, dsm_pair_release);
	struct dsm_pair *pr = s->node, *h;

	if (ll_likely(pr != NULL))
		return pr;
	if (!(pr = ll_zalloc(sizeof(*pr))))
		ll_fatal("out of memory for DSM-Synch nodes");
	atomic_init(&pr->state, DSM_REGISTERED | DSM_ALIVE);
	h = atomic_load_explicit(&l->pairs, memory_order_relaxed);
	do
		atomic_store_explicit(&pr->reg_next, h, memory_order_relaxed);
	/* release: a combiner or destroy that reads pairs sees reg_next */
	while (!atomic_compare_exchange_weak_explicit(
		&l->pairs, &h, pr, memory_order_release, memory_order_relaxed));
	s->node = pr;
	return pr;
}

/* Combiner, before running anything: free the pairs of exited threads.
 * Their last sections were answered by earlier passes, all ended. */
static void dsm_reclaim(struct dsm_lock *l)
{
	struct dsm_pair *pred = NULL, *pr, *next, *expected;

	/* acquire: pairs with the release of the registry pushes */
	for (pr = atomic_load_explicit(&l->pairs, memory_order_acquire); pr;
	     pr = next) {
		next = atomic_load_explicit(&pr->reg_next,
					    memory_order_relaxed);
		/* acquire: pairs with dsm_pair_release(); the exited
		 * thread's last writes to its nodes are done */
		if (atomic_load_explicit(&pr->state, memory_order_acquire) &
		    DSM_ALIVE) {
			pred = pr;
			continue;
		}
		expected = pr;
		if (pred)
			atomic_store_explicit(&pred->reg_next, next,
					      memory_order_relaxed);
		else if (!atomic_compare_exchange_strong_explicit(
				 &l->pairs, &expected, next,
				 memory_order_relaxed, memory_order_relaxed)) {
			pred = pr; /* a push moved the head: next time */
			continue;
		}
		ll_free(pr);
	}
}

/* Prepare the caller's next node for (@fn, @ctx). */
static struct ll_comb_node *dsm_prepare(struct dsm_pair *pr, liblock_fn_t fn,
					void *ctx)
{
	struct ll_comb_node *n = &pr->node[pr->toggle];

	pr->toggle ^= 1;
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&n->wait, 1, memory_order_relaxed);
	n->completed = false;
	n->fn = fn;
	n->ctx = ctx;
	return n;
}

/* Enqueue @n; returns true if a predecessor exists (wait on n->wait),
 * false if the caller is the combiner (or holder) at once. */
static bool dsm_enqueue(struct dsm_lock *l, struct ll_comb_node *n)
{
	/* acq_rel: release publishes n's request to the predecessor's
	 * combiner chain; acquire pairs with the release CAS that emptied
	 * the queue (dsm_hand_on), so the last pass's writes are ours */
	struct ll_comb_node *pred =
		atomic_exchange_explicit(&l->tail, n, memory_order_acq_rel);

	if (!pred)
		return false;
	/* release: the combiner that acquires pred->next sees n's fields */
	atomic_store_explicit(&pred->next, n, memory_order_release);
	return true;
}

/* End of a pass (or of a lock-mode hold) at @t: empty the queue if @t is
 * the tail, else hand the role to the node after @t. */
static void dsm_hand_on(struct dsm_lock *l, struct ll_comb_node *t)
{
	/* acquire: pairs with the successor's release link */
	struct ll_comb_node *nx =
		atomic_load_explicit(&t->next, memory_order_acquire);
	struct ll_comb_node *expected = t;
	unsigned int spins = 0;

	if (!nx) {
		/* (t) -> (NULL).  release: pairs with dsm_enqueue/trylock */
		if (atomic_compare_exchange_strong_explicit(
			    &l->tail, &expected, NULL, memory_order_release,
			    memory_order_relaxed))
			return;
		/* a successor swapped itself in: wait for its link */
		while (!(nx = atomic_load_explicit(&t->next,
						   memory_order_acquire)))
			ll_poll(&spins, LL_SPIN_BUDGET);
	}
	ll_comb_hand_on(nx);
}

/* Lock mode: blocks until this thread's lock node is handed the role;
 * combiners stop before it.  Returns 0 (aborts on ENOMEM). */
static int dsm_lock(void *impl)
{
	struct dsm_lock *l = impl;
	struct ll_comb_node *n =
		dsm_prepare(dsm_my_pair(l), ll_comb_lock_node, NULL);

	if (dsm_enqueue(l, n))
		ll_spin_until(&n->wait, 0, LL_SPIN_BUDGET);
	l->holder = n;
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	return 0;
}

/* (NULL) -> (node): returns 0, or EBUSY if the queue is not empty. */
static int dsm_trylock(void *impl)
{
	struct dsm_lock *l = impl;
	struct dsm_pair *pr = dsm_my_pair(l);
	struct ll_comb_node *n = &pr->node[pr->toggle], *expected = NULL;

	if (atomic_load_explicit(&l->tail, memory_order_relaxed) != NULL)
		return EBUSY;
	dsm_prepare(pr, ll_comb_lock_node, NULL);
	/* acq_rel: as the exchange in dsm_enqueue() */
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &expected, n,
						     memory_order_acq_rel,
						     memory_order_relaxed)) {
		pr->toggle ^= 1; /* n was not used */
		return EBUSY;
	}
	l->holder = n;
	atomic_store_explicit(&l->owner, ll_self(), memory_order_relaxed);
	return 0;
}

/* Returns EPERM if the caller did not take the lock in lock mode. */
static int dsm_unlock(void *impl)
{
	struct dsm_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != ll_self())
		return EPERM;
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	dsm_hand_on(l, l->holder);
	return 0;
}

/* Combiner: run sections from @own on (thesis Alg. 8), then hand on.
 * Also stops before a lock node and before a section whose function
 * waits (ll_comb_waits): its owner runs it as the next combiner. */
static void *dsm_combine(struct dsm_lock *l, struct ll_comb_node *own)
{
	struct ll_comb_node *tmp = own, *nx;
	unsigned int counter = 0;
	struct dsm_pass p;
	void *own_ret = NULL;

	if (++l->passes % DSM_RECLAIM_PERIOD == 0)
		dsm_reclaim(l);
	ll_comb_pass_begin(&p.base, l);
	for (;;) {
		counter++;
		p.cur = tmp;
		if (ll_comb_run_node(&p.base, tmp, own, &own_ret)) {
			/* we re-entered in lock mode: leave as a holder */
			ll_comb_pass_end(&p.base);
			dsm_unlock(l);
			return own_ret;
		}
		/* acquire (both): pair with the release links of
		 * dsm_enqueue(); nx's fields are then visible */
		nx = atomic_load_explicit(&tmp->next, memory_order_acquire);
		if (!nx || counter >= l->max_cs ||
		    nx->fn == ll_comb_lock_node || ll_comb_waits(nx->fn) ||
		    !atomic_load_explicit(&nx->next, memory_order_acquire))
			break;
		tmp = nx;
	}
	ll_comb_pass_end(&p.base);
	dsm_hand_on(l, tmp);
	return own_ret;
}

/* Runs fn(ctx) in mutual exclusion, here as the combiner or on another
 * thread's pass, and returns its result.  Aborts on ENOMEM (exec has no
 * error return). */
static void *dsm_exec(void *impl, liblock_fn_t fn, void *ctx)
{
	struct dsm_lock *l = impl;
	struct ll_comb_node *n = dsm_prepare(dsm_my_pair(l), fn, ctx);

	if (dsm_enqueue(l, n)) {
		ll_spin_until(&n->wait, 0, LL_SPIN_BUDGET);
		if (n->completed)
			return n->ret;
	}
	return dsm_combine(l, n);
}

/* A section waits: end the pass at its node, which stays unanswered. */
static void dsm_detach(void *impl, struct ll_comb_pass *base)
{
	dsm_hand_on(impl, ((struct dsm_pass *)base)->cur);
}

/* Inside a section of @impl (combined, or lock mode): see
 * ll_comb_cond_wait().  Returns 0, ETIMEDOUT, or EPERM outside one. */
static int dsm_cond_wait(void *impl, liblock_cond_t *cond,
			 const struct timespec *abstime)
{
	return ll_comb_cond_wait(impl, cond, abstime, dsm_detach, dsm_lock,
				 dsm_unlock);
}

const struct ll_ops ll_dsmsynch_ops = {
	.name = "dsmsynch",
	.summary =
		"DSM-Synch: CC-Synch with two nodes per thread, spin locally",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_DELEGATION | LIBLOCK_CAP_OWNER,
	.init = dsm_init,
	.destroy = dsm_destroy,
	.lock = dsm_lock,
	.trylock = dsm_trylock,
	.unlock = dsm_unlock,
	.exec = dsm_exec,
	.cond_wait = dsm_cond_wait,
};
