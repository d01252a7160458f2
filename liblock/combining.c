/* SPDX-License-Identifier: MIT */
/*
 * Shared machinery of the combining locks: per-thread slots released at
 * thread exit, combining-pass records, condition-variable waits inside
 * combined sections.  See combining_int.h for the protocol.
 *
 * Slots: ll_tnode() gives each (lock, thread) a small holder that points
 * to a slot we allocate and chain on a per-thread list; a pthread key
 * destructor runs each slot's release callback when the thread exits.
 * The holder is freed by tnode.c's own destructor, in an order pthreads
 * does not specify, so the holder carries the generation of the list it
 * belongs to: a holder from before our destructor ran (a lock used again
 * from another key's destructor) is seen as stale and gets a new slot.
 *
 * Memory model: thread-private data only, except what ll_cond_* do.
 */
#include "combining_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct comb_holder {
	struct ll_comb_slot *slot;
	unsigned int gen;
};

static pthread_key_t slots_key;
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static __thread struct ll_comb_slot *my_slots;
static __thread unsigned int my_gen;
static __thread struct ll_comb_pass *my_passes;

static void slots_release(void *arg)
{
	struct ll_comb_slot *s = my_slots, *next;

	(void)arg;
	my_slots = NULL;
	my_gen++; /* every holder of this thread is now stale */
	for (; s; s = next) {
		next = s->next;
		if (s->node)
			s->release(s->node);
		ll_free(s);
	}
}

static void slots_key_create(void)
{
	if (pthread_key_create(&slots_key, slots_release) != 0)
		ll_fatal("pthread_key_create failed");
}

static __attribute__((noinline)) struct ll_comb_slot *
slot_new(struct comb_holder *h, void (*release)(void *node))
{
	struct ll_comb_slot *s = ll_calloc(1, sizeof(*s));

	if (!s)
		ll_fatal("out of memory for a combining-lock slot");
	pthread_once(&slots_once, slots_key_create);
	/* The value only has to be non-NULL for the destructor to run. */
	if (!my_slots && pthread_setspecific(slots_key, &my_slots) != 0)
		ll_fatal("pthread_setspecific failed");
	s->release = release;
	s->next = my_slots;
	my_slots = s;
	h->slot = s;
	h->gen = my_gen;
	return s;
}

struct ll_comb_slot *ll_comb_slot(const struct ll_lock_key *key,
				  void (*release)(void *node))
{
	struct comb_holder *h = ll_tnode(key, sizeof(*h));

	if (ll_unlikely(!h))
		ll_fatal("out of memory for a combining-lock slot");
	if (ll_likely(h->slot && h->gen == my_gen))
		return h->slot;
	return slot_new(h, release);
}

void ll_comb_pass_begin(struct ll_comb_pass *p, const void *impl)
{
	p->impl = impl;
	p->fn = NULL;
	p->detached = false;
	p->outer = my_passes;
	my_passes = p;
}

void ll_comb_pass_end(struct ll_comb_pass *p)
{
	assert(my_passes == p);
	my_passes = p->outer;
}

static struct ll_comb_pass *pass_find(const void *impl)
{
	struct ll_comb_pass *p;

	for (p = my_passes; p; p = p->outer)
		if (p->impl == impl)
			return p;
	return NULL;
}

/* Functions whose sections waited: a small set, insert-only, open
 * addressing.  Read by every combiner for every other thread's section:
 * the lines stay shared in every cache (written a few times per run). */
#define WAITS_SLOTS 256
static _Atomic uintptr_t waits_set[WAITS_SLOTS];

static inline size_t waits_hash(uintptr_t f)
{
	return (size_t)(((uint64_t)f * 0x9e3779b97f4a7c15ull) >> 56) &
	       (WAITS_SLOTS - 1);
}

bool ll_comb_waits(liblock_fn_t fn)
{
	uintptr_t f = (uintptr_t)fn, v;

	/* relaxed: a combiner that must see an entry learned by the pass
	 * before it on the same lock got the role through an acquire */
	for (size_t i = waits_hash(f), n = 0; n < WAITS_SLOTS;
	     i = (i + 1) & (WAITS_SLOTS - 1), n++) {
		v = atomic_load_explicit(&waits_set[i], memory_order_relaxed);
		if (v == f)
			return true;
		if (v == 0)
			return false;
	}
	return false;
}

static void waits_learn(liblock_fn_t fn)
{
	uintptr_t f = (uintptr_t)fn, expected;
	static _Atomic bool warned;

	for (size_t i = waits_hash(f), n = 0; n < WAITS_SLOTS;
	     i = (i + 1) & (WAITS_SLOTS - 1), n++) {
		expected = 0;
		/* relaxed: published by the hand-off that follows (release) */
		if (atomic_compare_exchange_strong_explicit(
			    &waits_set[i], &expected, f, memory_order_relaxed,
			    memory_order_relaxed) ||
		    expected == f)
			return;
	}
	if (!atomic_exchange_explicit(&warned, true, memory_order_relaxed))
		ll_log(LL_WARN,
		       "more than %d section functions wait on "
		       "condition variables: combiners may run them",
		       WAITS_SLOTS);
}

int ll_comb_cond_wait(void *impl, liblock_cond_t *cond,
		      const struct timespec *abstime,
		      void (*detach)(void *impl, struct ll_comb_pass *p),
		      int (*lock)(void *impl), int (*unlock)(void *impl))
{
	struct ll_comb_pass *p = pass_find(impl);
	unsigned int seq;
	int rc;

	/* Registered as a waiter before the lock is released: a signal
	 * sent by the next holder changes seq, so no wake-up is lost. */
	seq = ll_cond_enter(cond);
	if (p && !p->detached) {
		waits_learn(p->fn);
		detach(impl, p);
		p->detached = true;
	} else if ((rc = unlock(impl)) != 0) {
		ll_cond_leave(cond);
		return rc; /* not inside a section of @impl */
	}
	rc = ll_cond_sleep(cond, seq, abstime);
	lock(impl);
	ll_cond_leave(cond);
	return rc;
}

/* MAX_COMBINER_CS = n x h: h hardware threads, n = 3 (thesis §5.1,
 * Fig. 5.1: 144 on 48 cores, 384 on 128 hardware threads). */
#define COMBINER_CS_PER_CPU 3u

void *ll_comb_lock_node(void *ctx)
{
	return ctx;
}

unsigned int ll_comb_max_cs(void)
{
	return COMBINER_CS_PER_CPU * (unsigned int)ll_cpu_count();
}
