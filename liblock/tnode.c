/* SPDX-License-Identifier: MIT */
/*
 * Per-(lock, thread) nodes, allocated lazily by the thread that uses them.
 *
 * Each thread owns a small open-addressing table keyed by the lock's
 * process-unique id.  Lookups touch only thread-private memory: no atomics
 * and no sharing on the fast path.  The table and its nodes are freed by a
 * pthread key destructor when the thread exits, so thousands of
 * short-lived threads do not leak.  Lock ids are never reused, so a node
 * left behind by a destroyed lock can never be confused with the node of
 * a new lock at the same address; ll_tnode_forget() lets a thread drop it
 * early.
 */
#include "ll_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct tnode_slot {
	uint64_t id; /* 0: empty; TOMBSTONE: deleted */
	void *node;
	void (*dtor)(void *node); /* run before the node is freed, or NULL */
};

struct tnode_table {
	size_t mask; /* capacity - 1, capacity a power of two */
	size_t used; /* live + tombstones */
	struct tnode_slot *slots;
	struct tnode_table *next_kept; /* on kept_tables */
};

#define TOMBSTONE UINT64_MAX

static _Atomic uint64_t next_lock_id = 1;
static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static __thread struct tnode_table *my_table LL_TLS_FAST;
/* The thread's last node: a lock is mostly taken again by the thread that
 * took it last, so this answers most lookups without hashing.  Lock ids
 * are never reused (they start at 1), and the entry is cleared when its
 * node is freed. */
__thread struct ll_tnode_last ll_tnode_last LL_TLS_FAST;

__thread long liblock_held_locks_ LL_TLS_FAST;

/* Tables of threads that exited holding a lock, never freed: a list, so
 * that they stay reachable (a leak checker does not report them, and a
 * debugger finds them). */
static struct tnode_table *_Atomic kept_tables;

static void keep_table(struct tnode_table *t)
{
	struct tnode_table *head =
		atomic_load_explicit(&kept_tables, memory_order_relaxed);

	/* relaxed: nobody reads the list; it only keeps the tables
	 * reachable */
	do
		t->next_kept = head;
	while (!atomic_compare_exchange_weak_explicit(&kept_tables, &head, t,
						      memory_order_relaxed,
						      memory_order_relaxed));
}

static void slot_release(struct tnode_slot *s)
{
	if (s->dtor)
		s->dtor(s->node);
	ll_free(s->node);
}

/* The key's destructor, at thread exit.  The table is unhooked before
 * anything is freed: a lock that a node's destructor, or a later key
 * destructor of the program (an allocator's thread cache), takes from
 * here on gets a fresh table, which glibc's next destructor round frees,
 * never a node already freed. */
static void table_free(void *arg)
{
	struct tnode_table *t = arg;

	if (my_table == t)
		my_table = NULL;
	ll_tnode_last.id = 0;
	ll_tnode_last.node = NULL;
	/* A thread that exits holding a lock (pthread_exit() inside a
	 * section: the lock stays held, as a POSIX mutex does) may have its
	 * node in that lock's queue: a waiter links itself to it.  Which
	 * one is not known: the whole table is kept, reachable. */
	if (liblock_held_locks_ > 0) {
		keep_table(t);
		return;
	}
	for (size_t i = 0; i <= t->mask; i++)
		if (t->slots[i].id != 0 && t->slots[i].id != TOMBSTONE)
			slot_release(&t->slots[i]);
	ll_free(t->slots);
	ll_free(t);
}

static void table_key_create(void)
{
	if (pthread_key_create(&table_key, table_free) != 0)
		ll_fatal("pthread_key_create failed");
}

void ll_lock_key_init(struct ll_lock_key *key)
{
	/* relaxed: only uniqueness matters, not ordering */
	key->id = atomic_fetch_add_explicit(&next_lock_id, 1,
					    memory_order_relaxed);
}

static inline size_t slot_of(uint64_t id, size_t mask)
{
	/* Fibonacci hashing spreads consecutive ids. */
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 17) & mask;
}

static struct tnode_table *table_new(size_t capacity)
{
	struct tnode_table *t = ll_calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->slots = ll_calloc(capacity, sizeof(*t->slots));
	if (!t->slots) {
		ll_free(t);
		return NULL;
	}
	t->mask = capacity - 1;
	return t;
}

/* Rebuild @t with room for four times its live entries (at least 16),
 * dropping tombstones: a thread that creates and forgets many locks keeps
 * a table sized by what it still uses. */
static int table_rehash(struct tnode_table *t)
{
	size_t live = 0, cap = 16;
	struct tnode_slot *slots;

	for (size_t i = 0; i <= t->mask; i++)
		live += t->slots[i].id != 0 && t->slots[i].id != TOMBSTONE;
	while (cap < (live + 1) * 4)
		cap *= 2;
	slots = ll_calloc(cap, sizeof(*slots));

	if (!slots)
		return ENOMEM;
	t->used = 0;
	for (size_t i = 0; i <= t->mask; i++) {
		uint64_t id = t->slots[i].id;
		size_t j;

		if (id == 0 || id == TOMBSTONE)
			continue;
		for (j = slot_of(id, cap - 1); slots[j].id;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = t->slots[i];
		t->used++;
	}
	ll_free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
	return 0;
}

static struct tnode_table *table_get(void)
{
	if (ll_likely(my_table != NULL))
		return my_table;
	pthread_once(&table_once, table_key_create);
	my_table = table_new(16);
	if (my_table && pthread_setspecific(table_key, my_table) != 0) {
		table_free(my_table);
		return NULL;
	}
	return my_table;
}

/* The table lookup behind ll_tnode_dtor(), allocating on a miss. */
static __attribute__((noinline)) void *
tnode_lookup(const struct ll_lock_key *key, size_t size,
	     void (*dtor)(void *node))
{
	struct tnode_table *t = table_get();
	size_t i;

	if (ll_unlikely(!t))
		return NULL;
	for (i = slot_of(key->id, t->mask); t->slots[i].id;
	     i = (i + 1) & t->mask)
		if (t->slots[i].id == key->id) {
			ll_tnode_last.id = key->id;
			ll_tnode_last.node = t->slots[i].node;
			return ll_tnode_last.node;
		}
	/* Miss: allocate.  Keep the load factor under 1/2. */
	if ((t->used + 1) * 2 > t->mask + 1) {
		if (table_rehash(t) != 0)
			return NULL;
		for (i = slot_of(key->id, t->mask); t->slots[i].id;
		     i = (i + 1) & t->mask)
			;
	}
	void *node = ll_zalloc(size);

	if (!node)
		return NULL;
	t->slots[i].id = key->id;
	t->slots[i].node = node;
	t->slots[i].dtor = dtor;
	t->used++;
	ll_tnode_last.id = key->id;
	ll_tnode_last.node = node;
	return node;
}

void *ll_tnode_dtor(const struct ll_lock_key *key, size_t size,
		    void (*dtor)(void *node))
{
	if (ll_likely(ll_tnode_last.id == key->id))
		return ll_tnode_last.node;
	return tnode_lookup(key, size, dtor);
}

void ll_tnode_forget(const struct ll_lock_key *key)
{
	struct tnode_table *t = my_table;

	if (ll_tnode_last.id == key->id) {
		ll_tnode_last.id = 0;
		ll_tnode_last.node = NULL;
	}
	if (!t)
		return;
	for (size_t i = slot_of(key->id, t->mask); t->slots[i].id;
	     i = (i + 1) & t->mask)
		if (t->slots[i].id == key->id) {
			slot_release(&t->slots[i]);
			t->slots[i].id = TOMBSTONE;
			t->slots[i].node = NULL;
			t->slots[i].dtor = NULL;
			return;
		}
}
