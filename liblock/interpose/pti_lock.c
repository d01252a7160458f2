/* SPDX-License-Identifier: MIT */
/*
 * The interposer's lock operations on a mutex record: the liblock lock
 * (with the trylock gate), timed acquisition, and the holder and depth
 * bookkeeping that gives recursive and error-checking semantics.
 *
 * Every record notes its holder, a per-thread token (the address of the
 * thread's pti_thread block: never 0, unique among live threads), written only
 * by the holder; recursive and error-checking mutexes also check it.
 *
 * trylock for algorithms without one ("gated"): a counter of threads
 * inside lock..unlock; trylock succeeds only by moving it 0 -> 1, when
 * nobody holds or waits, and then lock() cannot block.  It costs two
 * atomic RMWs per section, so only such algorithms pay it.
 *
 * timedlock/clocklock poll trylock with a sleep that doubles from 1 us to
 * 1 ms (ll_try_until(), as liblock_clocklock()), so they may return up to
 * 1 ms after the deadline and do not queue behind lock() callers.
 *
 * Handed mutexes.  glibc lets any thread unlock a normal mutex, and
 * legacy code hands locks over that way; most algorithms refuse (their
 * lock state names the holder's thread).  The first such unlock turns the
 * record into a plain futex lock (Drepper's "Futexes are tricky" mutex 2:
 * 0 free, 1 held, 2 held and waited for), which any thread may unlock, and
 * says so once with the call site.  The algorithm's lock stays held by the
 * old holder and is leaked; a thread already queued in it at that moment
 * stays there (the one case this does not cover).
 *
 * Needs only C11 acquire/release; no TSO reliance.
 */
#include "pti_int.h"
#include "ll_wait.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>

/* relaxed: handed is set once, under the writer lock, before the mutex
 * is free again; a thread that does not see it yet uses the old lock,
 * which is the race described above */
static inline bool handed(struct pti_obj *o)
{
	return atomic_load_explicit(&o->handed, memory_order_relaxed);
}

static int hand_lock(struct pti_obj *o)
{
	uint32_t c = 0;

	/* acquire: pairs with the release exchange in hand_unlock() */
	if (atomic_compare_exchange_strong_explicit(&o->hword, &c, 1,
						    memory_order_acquire,
						    memory_order_relaxed))
		return 0;
	if (c != 2)
		c = atomic_exchange_explicit(&o->hword, 2,
					     memory_order_acquire);
	while (c != 0) {
		ll_futex_wait(&o->hword, 2, NULL, CLOCK_MONOTONIC);
		c = atomic_exchange_explicit(&o->hword, 2,
					     memory_order_acquire);
	}
	return 0;
}

static int hand_trylock(struct pti_obj *o)
{
	uint32_t c = 0;

	/* acquire: as in hand_lock() */
	return atomic_compare_exchange_strong_explicit(&o->hword, &c, 1,
						       memory_order_acquire,
						       memory_order_relaxed)
		       ? 0
		       : EBUSY;
}

static int hand_unlock(struct pti_obj *o)
{
	/* release: the section's writes before the next holder's acquire */
	if (atomic_exchange_explicit(&o->hword, 0, memory_order_release) == 2)
		ll_futex_wake(&o->hword, 1);
	return 0;
}

void pti_hand_over(struct pti_obj *o, const void *site)
{
	static _Atomic bool said;
	Dl_info info;

	pti_map_writer_lock();
	if (!handed(o)) {
		atomic_store_explicit(&o->hword, 0, memory_order_relaxed);
		atomic_store_explicit(&o->fast, false, memory_order_relaxed);
		atomic_store_explicit(&o->handed, true, memory_order_relaxed);
	}
	pti_map_writer_unlock();
	if (atomic_exchange_explicit(&said, true, memory_order_relaxed))
		return;
	if (dladdr(site, &info) && info.dli_fname)
		ll_log(LL_WARN,
		       "rcl-run: mutex %p unlocked by a thread that did not "
		       "lock it, called from %s (%s+%#lx); it is now a plain "
		       "futex lock (said once)",
		       (void *)atomic_load(&o->key), info.dli_fname,
		       info.dli_sname ? info.dli_sname : "?",
		       (unsigned long)((const char *)site -
				       (const char
						*)(info.dli_sname
							   ? info.dli_saddr
							   : info.dli_fbase)));
	else
		ll_log(LL_WARN,
		       "rcl-run: mutex %p unlocked by a thread that did not "
		       "lock it, called from %p; it is now a plain futex lock "
		       "(said once)",
		       (void *)atomic_load(&o->key), site);
}

int pti_base_lock(struct pti_obj *o)
{
	int rc;

	if (ll_unlikely(handed(o)))
		return hand_lock(o);
	if (o->gated)
		atomic_fetch_add_explicit(&o->users, 1, memory_order_relaxed);
	pti_thread.inside++;
	rc = liblock_lock(&o->lock);
	pti_thread.inside--;
	if (rc != 0 && o->gated)
		atomic_fetch_sub_explicit(&o->users, 1, memory_order_relaxed);
	return rc;
}

static int base_trylock(struct pti_obj *o)
{
	uint32_t none = 0;
	int rc;

	if (ll_unlikely(handed(o)))
		return hand_trylock(o);
	/* acquire: pairs with the release in base_unlock(), so the last
	 * holder's unlock is visible and lock() below finds it free */
	if (o->gated && !atomic_compare_exchange_strong_explicit(
				&o->users, &none, 1, memory_order_acquire,
				memory_order_relaxed))
		return EBUSY;
	pti_thread.inside++;
	rc = o->gated ? liblock_lock(&o->lock) : liblock_trylock(&o->lock);
	pti_thread.inside--;
	if (rc != 0 && o->gated)
		atomic_fetch_sub_explicit(&o->users, 1, memory_order_relaxed);
	return rc;
}

int pti_base_unlock(struct pti_obj *o)
{
	int rc;

	if (ll_unlikely(handed(o)))
		return hand_unlock(o);
	pti_thread.inside++;
	rc = liblock_unlock(&o->lock);
	pti_thread.inside--;
	/* release: pairs with the acquire CAS in base_trylock() */
	if (rc == 0 && o->gated)
		atomic_fetch_sub_explicit(&o->users, 1, memory_order_release);
	return rc;
}

static int try_obj(void *o)
{
	return base_trylock(o);
}

static int base_timedlock(struct pti_obj *o, clockid_t clock,
			  const struct timespec *abstime)
{
	return ll_try_until(try_obj, o, clock, abstime);
}

bool pti_fast_ok(const struct pti_obj *o)
{
	return o->kind == PTI_NORMAL && !o->gated && o->ops && o->ops->lock &&
	       o->ops->unlock &&
	       !atomic_load_explicit(&o->handed, memory_order_relaxed) &&
	       !atomic_load_explicit(&o->thin, memory_order_relaxed);
}

/* We hold @o's lock and it may still have a thin holder (pti_obj.thin):
 * wait for glibc's word in the mutex memory to be free, by taking and
 * dropping it (as @how says: block, try, or until @abstime), once per
 * record.  A thread that takes the word after the tag was written sees
 * the tag and lets it go (first_use() in pti_mutex.c): glibc's unlock
 * below releases what that thread's trylock acquires.  Returns 0, or
 * glibc's error (EBUSY, ETIMEDOUT) with @o's lock released. */
static int drain(struct pti_obj *o, enum pti_how how, clockid_t clock,
		 const struct timespec *abstime)
{
	const struct pti_real *r = pti_real();
	pthread_mutex_t *m = (pthread_mutex_t *)atomic_load_explicit(
		&o->key, memory_order_relaxed);
	int rc;

	/* timedlock rather than clocklock for CLOCK_REALTIME: the same, and
	 * ThreadSanitizer intercepts only the former (it would miss the
	 * thin holder's release otherwise) */
	if (how == PTI_HOW_TRY)
		rc = r->mutex_trylock(m);
	else if (abstime && clock == CLOCK_REALTIME)
		rc = r->mutex_timedlock(m, abstime);
	else if (abstime)
		rc = r->mutex_clocklock(m, clock, abstime);
	else
		rc = r->mutex_lock(m);
	if (rc != 0) {
		pti_base_unlock(o);
		return rc;
	}
	r->mutex_unlock(m);
	atomic_store_explicit(&o->thin, false, memory_order_relaxed);
	/* relaxed: a thread that still reads false takes the general path,
	 * which is right too (see pti_obj.fast) */
	atomic_store_explicit(&o->fast, pti_fast_ok(o), memory_order_relaxed);
	return 0;
}

int pti_enter(struct pti_obj *o, enum pti_how how, clockid_t clock,
	      const struct timespec *abstime)
{
	int rc;

	if (o->kind != PTI_NORMAL &&
	    atomic_load_explicit(&o->owner, memory_order_relaxed) == PTI_SELF) {
		if (o->kind == PTI_ERRORCHECK)
			return how == PTI_HOW_TRY ? EBUSY : EDEADLK;
		if (o->depth == UINT_MAX)
			return EAGAIN;
		o->depth++;
		return 0;
	}
	if (how == PTI_HOW_TRY)
		rc = base_trylock(o);
	else if (abstime)
		rc = base_timedlock(o, clock, abstime);
	else
		rc = pti_base_lock(o);
	/* relaxed: see pti_obj.thin; we hold the lock */
	if (rc == 0 && o->kind == PTI_NORMAL &&
	    ll_unlikely(atomic_load_explicit(&o->thin, memory_order_relaxed)))
		rc = drain(o, how, clock, abstime);
	if (rc == 0) {
		/* relaxed: only the holder writes it, and a thread only
		 * compares it with its own token */
		atomic_store_explicit(&o->owner, PTI_SELF,
				      memory_order_relaxed);
		o->depth = 1;
	}
	return rc;
}

int pti_mutex_release(struct pti_obj *o, unsigned int *depth)
{
	*depth = o->depth;
	if (o->kind != PTI_NORMAL &&
	    atomic_load_explicit(&o->owner, memory_order_relaxed) != PTI_SELF)
		return EPERM;
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	o->depth = 0;
	return pti_base_unlock(o);
}

void pti_mutex_reacquire(struct pti_obj *o, unsigned int depth)
{
	int rc = pti_base_lock(o);

	if (rc != 0)
		ll_fatal("rcl-run: re-taking a mutex after a wait: error %d",
			 rc);
	atomic_store_explicit(&o->owner, PTI_SELF, memory_order_relaxed);
	o->depth = depth;
}
