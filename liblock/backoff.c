/* SPDX-License-Identifier: MIT */
/*
 * backoff: test-and-set with bounded exponential backoff (Anderson, IEEE
 * TPDS 1990; Mellor-Crummey and Scott, ACM TOCS 1991, Fig. 1).
 *
 * Design: every attempt is a CAS on the lock word; after a failed attempt
 * the thread waits a delay before trying again, and doubles the delay up to
 * a ceiling.  Waiters that keep failing thus retry less and less often,
 * which spreads out the burst of CASes that follows a release.  Succession
 * is competitive (a newcomer with a short delay wins more often: unfair).
 *
 * Parameters (in ll_cpu_relax() pauses): BACKOFF_MIN 16, BACKOFF_MAX 4096.
 * Concurrency Kit, which LiTL uses, counts 512 .. 2^20-1 iterations of a
 * compiler barrier (about one cycle each); a pause costs 10 to 140 cycles
 * depending on the CPU, so our bounds cover a similar range of time.  The
 * delay is randomised in [d/2, d) so waiters do not retry in lockstep.
 * A waiter whose delays add up to LL_SPIN_YIELD_BUDGET pauses also yields
 * (ll_spin_poll), as every liblock spin does.
 *
 * Lock word (owner): 0 free, else the owner's token; (0) -> (me) by CAS,
 * (me) -> (0) by store.  Hence EPERM and EBUSY detection, as in ttas.
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "ll_int.h"
#include "ll_wait.h"

#include <errno.h>

#define BACKOFF_MIN 16u
#define BACKOFF_MAX 4096u

struct backoff_lock {
	_Atomic uintptr_t owner;
} LL_ALIGNED;

static_assert(sizeof(struct backoff_lock) == LL_CACHELINE, "one line per lock");

/* A per-thread token that is never 0, and a per-thread xorshift state. */
static __thread char self_token;
static __thread uint32_t rng_state;
#define SELF ((uintptr_t)&self_token)

/* Returns 0 or ENOMEM. */
static int backoff_init(void **impl, const liblock_attr_t *attr)
{
	struct backoff_lock *l = ll_zalloc(sizeof(*l));

	(void)attr;
	if (!l)
		return ENOMEM;
	atomic_init(&l->owner, 0);
	*impl = l;
	return 0;
}

/* Returns 0, or EBUSY (lock kept) if held. */
static int backoff_destroy(void *impl)
{
	struct backoff_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != 0)
		return EBUSY;
	ll_free(l);
	return 0;
}

static inline bool backoff_cas(struct backoff_lock *l)
{
	uintptr_t expected = 0;

	/* (0) -> (me).  acquire: pairs with the release in backoff_unlock() */
	return atomic_compare_exchange_strong_explicit(
		&l->owner, &expected, SELF, memory_order_acquire,
		memory_order_relaxed);
}

/* A pseudo-random number (xorshift32), seeded from the thread's token. */
static inline uint32_t backoff_rand(void)
{
	uint32_t x = rng_state ? rng_state : (uint32_t)(SELF >> 4) | 1u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng_state = x;
	return x;
}

/* Blocks until acquired.  Returns 0. */
static int backoff_lock(void *impl)
{
	struct backoff_lock *l = impl;
	unsigned int delay = BACKOFF_MIN, polls = 0;

	while (!backoff_cas(l)) {
		unsigned int n = delay / 2 + backoff_rand() % (delay / 2);

		while (n--)
			ll_spin_poll(&polls);
		if (delay < BACKOFF_MAX)
			delay *= 2;
	}
	return 0;
}

/* One attempt.  Returns 0, or EBUSY if held. */
static int backoff_trylock(void *impl)
{
	return backoff_cas(impl) ? 0 : EBUSY;
}

/* Caller holds the lock.  Returns 0, or EPERM if it does not. */
static int backoff_unlock(void *impl)
{
	struct backoff_lock *l = impl;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed) != SELF)
		return EPERM;
	/* (me) -> (0).  release: the section's writes before the handover */
	atomic_store_explicit(&l->owner, 0, memory_order_release);
	return 0;
}

const struct ll_ops ll_backoff_ops = {
	.name = "backoff",
	.summary = "test-and-set with randomised exponential backoff",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = backoff_init,
	.destroy = backoff_destroy,
	.lock = backoff_lock,
	.trylock = backoff_trylock,
	.unlock = backoff_unlock,
};
