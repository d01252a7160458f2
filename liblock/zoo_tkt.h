/* SPDX-License-Identifier: MIT */
/*
 * Ticket building blocks for the zoo: a ticket lock and a partitioned
 * ticket lock (Dice, SPAA 2011), both "thread-oblivious" (any thread may
 * release what another acquired, which lock cohorting needs of its global
 * lock), both with an exact, non-blocking trylock.
 *
 * Ticket (next, grant): acquire t = next++, wait grant == t;
 *   release grant++; free iff next == grant.
 * Partitioned ticket (request, grant[S]): acquire t = request++, wait
 *   grant[t % S] == t; release grant[(t+1) % S] = t+1.  Waiters for
 *   different tickets spin on different cache lines.  Slot k only ever
 *   holds k, k+S, k+2S, ... in increasing order.
 *
 * Memory model: C11 acquire/release; no TSO reliance.
 */
#ifndef ZOO_TKT_H
#define ZOO_TKT_H

#include "zoo_int.h"

/* ---- ticket ---------------------------------------------------------------
 */

struct ztkt {
	_Atomic uint32_t next;
	_Atomic uint32_t grant;
};

static inline void ztkt_acquire(struct ztkt *t)
{
	/* relaxed: the ticket only orders us; acquire is on grant */
	uint32_t me =
		atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);

	ll_spin_until(
		&t->grant, me,
		LL_SPIN_YIELD_BUDGET); /* acquire: pairs with ztkt_release */
}

/* (next, grant): (g, g) -> (g+1, g).  True if taken. */
static inline bool ztkt_try(struct ztkt *t)
{
	/* acquire: pairs with the release in ztkt_release() */
	uint32_t g = atomic_load_explicit(&t->grant, memory_order_acquire);

	/* relaxed: the load above already ordered us after holder g - 1;
	 * next == g means nobody holds or waits for ticket g */
	return atomic_compare_exchange_strong_explicit(&t->next, &g, g + 1,
						       memory_order_relaxed,
						       memory_order_relaxed);
}

static inline void ztkt_release(struct ztkt *t)
{
	/* relaxed load: only the holder writes grant */
	uint32_t g = atomic_load_explicit(&t->grant, memory_order_relaxed);

	/* release: the section before the next holder's acquire */
	atomic_store_explicit(&t->grant, g + 1, memory_order_release);
}

/* Is anybody waiting behind the holder? */
static inline bool ztkt_waiters(struct ztkt *t)
{
	return atomic_load_explicit(&t->next, memory_order_relaxed) -
		       atomic_load_explicit(&t->grant, memory_order_relaxed) >
	       1;
}

static inline bool ztkt_held(struct ztkt *t)
{
	return atomic_load_explicit(&t->next, memory_order_relaxed) !=
	       atomic_load_explicit(&t->grant, memory_order_relaxed);
}

/* ---- partitioned ticket ------------------------------------------------- */

struct zptl_slot {
	_Atomic uint32_t grant;
} LL_ALIGNED;

static_assert(sizeof(struct zptl_slot) == LL_CACHELINE, "one line per slot");

struct zptl {
	_Atomic uint32_t request LL_ALIGNED;
	uint32_t nslots;
	/* holder-written: the ticket being served, read by the releaser
	 * (which may be another thread: cohort global lock) */
	uint32_t owner_ticket LL_ALIGNED;
	struct zptl_slot *slot; /* [nslots]; slot[0].grant starts at 0 */
};

/* Returns 0 or ENOMEM. */
static inline int zptl_init(struct zptl *p, uint32_t nslots)
{
	p->slot = ll_zalloc(nslots * sizeof(*p->slot));
	if (!p->slot)
		return ENOMEM;
	p->nslots = nslots;
	/* slot k starts at k - S (its first ticket is k), so that "grant ==
	 * ticket" is false for every slot but 0.  Wraps modulo 2^32, which
	 * is fine for equality tests. */
	for (uint32_t k = 0; k < nslots; k++)
		atomic_init(&p->slot[k].grant, k - nslots + (k == 0) * nslots);
	atomic_init(&p->request, 0);
	return 0;
}

static inline void zptl_fini(struct zptl *p)
{
	ll_free(p->slot);
}

static inline void zptl_acquire(struct zptl *p)
{
	/* relaxed: the ticket only orders us; acquire is on the slot */
	uint32_t t =
		atomic_fetch_add_explicit(&p->request, 1, memory_order_relaxed);

	ll_spin_until(&p->slot[t % p->nslots].grant, t, LL_SPIN_YIELD_BUDGET);
	p->owner_ticket = t;
}

/* Free iff the slot of ticket `request` already grants it: ticket
 * request - 1 was released and nobody took ticket `request` since. */
static inline bool zptl_try(struct zptl *p)
{
	uint32_t t = atomic_load_explicit(&p->request, memory_order_relaxed);

	/* acquire: pairs with the release in zptl_release(); see above */
	if (atomic_load_explicit(&p->slot[t % p->nslots].grant,
				 memory_order_acquire) != t)
		return false;
	if (!atomic_compare_exchange_strong_explicit(&p->request, &t, t + 1,
						     memory_order_relaxed,
						     memory_order_relaxed))
		return false;
	p->owner_ticket = t;
	return true;
}

static inline void zptl_release(struct zptl *p)
{
	uint32_t t = p->owner_ticket + 1;

	/* release: the section before the next holder's acquire */
	atomic_store_explicit(&p->slot[t % p->nslots].grant, t,
			      memory_order_release);
}

static inline bool zptl_held(struct zptl *p)
{
	uint32_t t = atomic_load_explicit(&p->request, memory_order_relaxed);

	return atomic_load_explicit(&p->slot[t % p->nslots].grant,
				    memory_order_relaxed) != t;
}

#endif /* ZOO_TKT_H */
