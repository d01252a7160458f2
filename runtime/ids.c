/* SPDX-License-Identifier: MIT */
/*
 * Client ids: the index of a thread's slot in every server's request array
 * (thesis §4.1.2.2).  The thesis uses an adaptive long-lived renaming
 * algorithm; we keep its two properties with a simpler, rarely-called
 * allocator: ids are the lowest free ones (so they stay dense), and the
 * servers scan only up to one past the highest live id (rcl_ids_limit).
 * An id is taken on a thread's first RCL call and given back by a pthread
 * key destructor when the thread exits, so ids are recycled and thread
 * churn never exhausts the array.
 *
 * A recycled id's slots are idle on every server: the previous owner
 * waited for each of its requests to complete before it could exit.  In
 * a forked child only the forking thread keeps its id; the slots of the
 * others are cleared by server.c's fork handler.
 *
 * Memory model: the bitmap is protected by a mutex; servers read the
 * scan limit relaxed (a stale limit only delays the first request of a new
 * thread by a sweep: the slot's contents are synchronised by its fn word).
 */
#include "rcl_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t ids_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ids_used[RCL_MAX_CLIENTS / 64]; /* under ids_mu */
static uint32_t ids_nlive;			/* under ids_mu */
_Atomic uint32_t rcl_ids_limit_word;
static pthread_key_t ids_key;
static pthread_once_t ids_once = PTHREAD_ONCE_INIT;
__thread uint32_t rcl_my_id_plus1 LL_TLS_FAST;

/* Called with ids_mu held: the new one-past-highest live id. */
static uint32_t highest_plus1(void)
{
	for (uint32_t w = RCL_MAX_CLIENTS / 64; w-- > 0;)
		if (ids_used[w])
			return w * 64 + 64 -
			       (uint32_t)__builtin_clzll(ids_used[w]);
	return 0;
}

/* pthread key destructor: the thread exits, its id is free again.  Another
 * key's destructor may still run a section afterwards (liburcu-bp's thread
 * exit notifier unregisters under an RCL lock): the thread must not post
 * it in the slot it gave back, which the servers may no longer scan and
 * another thread may already own.  It takes a new id, and setting the key
 * again makes glibc run this destructor in another round. */
static void id_release(void *arg)
{
	uint32_t id = (uint32_t)((uintptr_t)arg - 1);

	rcl_my_id_plus1 = 0;
	rcl_mutex_lock(&ids_mu);
	ids_used[id / 64] &= ~(1ull << (id % 64));
	ids_nlive--;
	atomic_store_explicit(&rcl_ids_limit_word, highest_plus1(),
			      memory_order_relaxed);
	rcl_mutex_unlock(&ids_mu);
}

static void ids_lock(void)
{
	rcl_mutex_lock(&ids_mu);
}

static void ids_unlock(void)
{
	rcl_mutex_unlock(&ids_mu);
}

/* fork() child: only the forking thread exists; the ids of the parent's
 * other threads are free again (their key destructors never run here).
 * Memory only, async-signal-safe. */
static void ids_child(void)
{
	uint32_t mine = rcl_my_id_plus1;

	memset(ids_used, 0, sizeof(ids_used));
	ids_nlive = 0;
	if (mine != 0) {
		ids_used[(mine - 1) / 64] |= 1ull << ((mine - 1) % 64);
		ids_nlive = 1;
	}
	atomic_store_explicit(&rcl_ids_limit_word, mine, memory_order_relaxed);
	rcl_mutex_unlock(&ids_mu);
}

static void ids_setup(void)
{
	if (pthread_key_create(&ids_key, id_release) != 0 ||
	    pthread_atfork(ids_lock, ids_unlock, ids_child) != 0)
		ll_fatal("cannot create the RCL client-id key");
}

void rcl_ids_fork_init(void)
{
	pthread_once(&ids_once, ids_setup);
}

/* Lowest free id, or RCL_MAX_CLIENTS; ids_mu held. */
static uint32_t lowest_free(void)
{
	for (uint32_t w = 0; w < RCL_MAX_CLIENTS / 64; w++)
		if (~ids_used[w])
			return w * 64 + (uint32_t)__builtin_ctzll(~ids_used[w]);
	return RCL_MAX_CLIENTS;
}

__attribute__((noinline)) uint32_t rcl_client_id_alloc(void)
{
	static _Atomic int warned;
	uint32_t id;

	pthread_once(&ids_once, ids_setup);
	for (;;) {
		rcl_mutex_lock(&ids_mu);
		id = lowest_free();
		if (id < RCL_MAX_CLIENTS) {
			ids_used[id / 64] |= 1ull << (id % 64);
			ids_nlive++;
			if (id + 1 > atomic_load_explicit(&rcl_ids_limit_word,
							  memory_order_relaxed))
				atomic_store_explicit(&rcl_ids_limit_word,
						      id + 1,
						      memory_order_relaxed);
		}
		rcl_mutex_unlock(&ids_mu);
		if (id < RCL_MAX_CLIENTS)
			break;
		/* More live client threads than slots: wait for one to
		 * exit rather than fail a critical section. */
		if (!atomic_exchange_explicit(&warned, 1, memory_order_relaxed))
			ll_log(LL_WARN,
			       "more than %u threads use RCL locks: "
			       "waiting for a client id",
			       RCL_MAX_CLIENTS);
		usleep(1000);
	}
	if (pthread_setspecific(ids_key, (void *)(uintptr_t)(id + 1)) != 0)
		ll_fatal("cannot register the RCL client id of a thread");
	rcl_my_id_plus1 = id + 1;
	return id;
}

uint32_t rcl_ids_live(void)
{
	uint32_t n;

	rcl_mutex_lock(&ids_mu);
	n = ids_nlive;
	rcl_mutex_unlock(&ids_mu);
	return n;
}
