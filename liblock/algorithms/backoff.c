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
 * Lock word: the owner word of ll_owner.h; (0) -> (me) by CAS,
 * (me) -> (0) by store.  Hence EPERM and EBUSY detection, as in ttas.
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "ll_owner.h"
#include "ll_wait.h"

#define BACKOFF_MIN 16u
#define BACKOFF_MAX 4096u

/* A per-thread xorshift state. */
static __thread uint32_t rng_state;

/* A pseudo-random number (xorshift32), seeded from the thread's token. */
static inline uint32_t backoff_rand(void)
{
	uint32_t x = rng_state ? rng_state : (uint32_t)(ll_self() >> 4) | 1u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng_state = x;
	return x;
}

/* Blocks until acquired.  Returns 0. */
static int backoff_lock(void *impl)
{
	unsigned int delay = BACKOFF_MIN, polls = 0;

	while (!ll_owner_cas(impl)) {
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
	return ll_owner_cas(impl) ? 0 : EBUSY;
}

const struct ll_ops ll_backoff_ops = {
	.name = "backoff",
	.summary = "test-and-set with randomised exponential backoff",
	.caps = LIBLOCK_CAP_LOCK | LIBLOCK_CAP_OWNER,
	.init = ll_owner_init,
	.destroy = ll_owner_destroy,
	.lock = backoff_lock,
	.trylock = backoff_trylock,
	.unlock = ll_owner_unlock,
};
