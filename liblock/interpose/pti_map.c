/* SPDX-License-Identifier: MIT */
/*
 * The address -> record map of the interposer: a fixed array of buckets,
 * each a singly linked list published with release stores, guarded by a
 * per-bucket sequence counter (a seqlock) for removals.
 *
 *   lookup   lock-free: read seq (even), walk the list, re-read seq; retry
 *            if it moved.  Never writes shared memory, so a hot mutex's
 *            bucket stays shared in every reader's cache.
 *   insert   under one writer mutex; a release store of the head publishes
 *            a fully built record (no seq bump: a reader sees it or not).
 *   remove   under the writer mutex: seq odd, unlink, seq even.
 *
 * Records come from heap chunks that are never freed (heap, not mmap, so
 * that leak checkers see the locks they point to), listed in pti_map_dir
 * so that a mutex's tag can name a record by index (pti_int.h), and every
 * field a lookup reads (key, next) is atomic, so a lookup that walks into
 * a record being removed and recycled reads stale values, never freed
 * memory; its seq check then fails and it retries.  Writers are rare (a
 * mutex's first use, init, destroy); one writer mutex keeps fork simple:
 * it is held across fork(), so the child's map is never half-updated.
 *
 * Mutex lookups go through the tag, not this map: its mutex table is read
 * only by writers (a mutex's first use, init, destroy, fork).
 *
 * Memory model: a C11 seqlock without fences (ThreadSanitizer has none):
 * lookups load every link and key with acquire, writers store them with
 * release, so a lookup that sees any change of a writer also sees that
 * writer's odd seq at its re-check (Boehm, MSPC 2012, the acquire-load
 * variant).
 */
#include "pti_int.h"
#include "ll_wait.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Mutexes: a table read and written only under the writer lock (lookups
 * use the tag), so it simply grows: 2^12 buckets at first, doubled when
 * it holds more than two records per bucket.  Condvars: 2^16 buckets,
 * fixed (lock-free lookups walk them). */
#define PTI_MUTEX_BUCKET_BITS_MIN 12
#define PTI_COND_BUCKET_BITS 16
#define PTI_CHUNK_RECORDS (1u << PTI_CHUNK_BITS)
/* Re-check seq every this many hops: a walk through recycled records
 * could otherwise loop. */
#define PTI_HOPS_PER_CHECK 16

struct pti_bucket {
	_Atomic uint32_t seq; /* odd while a removal is in progress */
	_Atomic(struct pti_obj *) head;
};

static struct pti_bucket cond_table[1u << PTI_COND_BUCKET_BITS];
/* under writer: */
static struct pti_bucket *mutex_table; /* NULL until the first record */
static unsigned int mutex_bits;
static size_t mutex_records;
struct pti_obj *_Atomic pti_map_dir[1u << PTI_DIR_BITS];
static pthread_mutex_t writer = PTHREAD_MUTEX_INITIALIZER;
/* under writer: */
static struct pti_obj *free_list;
static uint32_t chunks_used; /* pti_map_dir[0 .. chunks_used) are set */
static uint32_t chunk_left;  /* records not yet handed out in the last */

/* MurmurHash3's finaliser: a multiplication alone spreads evenly spaced
 * keys (an array of objects) over a third of the buckets. */
static inline uint64_t hash(uintptr_t key)
{
	uint64_t h = (uint64_t)key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* @key's bucket; for mutexes, under the writer lock, NULL if the table
 * does not exist yet. */
static inline struct pti_bucket *bucket_of(enum pti_table t, uintptr_t key)
{
	uint64_t h = hash(key);

	if (t == PTI_MUTEXES)
		return mutex_table ? &mutex_table[h >> (64 - mutex_bits)]
				   : NULL;
	return &cond_table[h >> (64 - PTI_COND_BUCKET_BITS)];
}

/* One walk of @b's list; false if the seq moved under us. */
static bool walk(struct pti_bucket *b, uintptr_t key, uint32_t s,
		 struct pti_obj **out)
{
	struct pti_obj *o;
	unsigned int hops = 0;

	/* acquire: pairs with the release store that published each node,
	 * so a node's fields are initialised when we see it */
	for (o = atomic_load_explicit(&b->head, memory_order_acquire); o;
	     o = atomic_load_explicit(&o->next, memory_order_acquire)) {
		/* acquire: pairs with the release stores of writers */
		if (atomic_load_explicit(&o->key, memory_order_acquire) == key)
			break;
		if (++hops % PTI_HOPS_PER_CHECK == 0 &&
		    atomic_load_explicit(&b->seq, memory_order_relaxed) != s)
			return false;
	}
	/* The acquire loads above keep this re-check after them; one that
	 * read a writer's release store sees at least its odd seq here. */
	if (atomic_load_explicit(&b->seq, memory_order_relaxed) != s)
		return false;
	*out = o;
	return true;
}

struct pti_obj *pti_map_find(enum pti_table t, uintptr_t key)
{
	struct pti_bucket *b = bucket_of(t, key);
	struct pti_obj *o;

	for (;;) {
		/* acquire: pairs with the release in write_end(), so a
		 * finished removal is seen whole */
		uint32_t s =
			atomic_load_explicit(&b->seq, memory_order_acquire);

		if (ll_unlikely(s & 1)) {
			ll_cpu_relax();
			continue;
		}
		if (walk(b, key, s, &o))
			return o;
	}
}

/* ---- writers (hold `writer`) -------------------------------------------- */

static void write_begin(struct pti_bucket *b)
{
	uint32_t s = atomic_load_explicit(&b->seq, memory_order_relaxed);

	/* relaxed: the release stores of the change that follows order it
	 * before them (see walk()) */
	atomic_store_explicit(&b->seq, s + 1, memory_order_relaxed);
}

static void write_end(struct pti_bucket *b)
{
	uint32_t s = atomic_load_explicit(&b->seq, memory_order_relaxed);

	/* release: pairs with the acquire load in pti_map_find() */
	atomic_store_explicit(&b->seq, s + 1, memory_order_release);
}

static struct pti_obj *find_locked(struct pti_bucket *b, uintptr_t key,
				   _Atomic(struct pti_obj *) **link)
{
	_Atomic(struct pti_obj *) *l;
	struct pti_obj *o;

	if (!b)
		return NULL; /* no mutex table yet */
	l = &b->head;
	while ((o = atomic_load_explicit(l, memory_order_relaxed)) != NULL) {
		if (atomic_load_explicit(&o->key, memory_order_relaxed) == key)
			break;
		l = &o->next;
	}
	if (link)
		*link = l;
	return o;
}

/* A record never handed out before, from the last chunk (or a new one). */
static struct pti_obj *obj_new(void)
{
	struct pti_obj *chunk, *o;
	uint32_t i;

	if (chunk_left == 0) {
		void *mem;

		if (chunks_used == 1u << PTI_DIR_BITS ||
		    !(mem = ll_memalign(LL_CACHELINE,
					PTI_CHUNK_RECORDS * sizeof(*o))))
			return NULL;
		memset(mem, 0, PTI_CHUNK_RECORDS * sizeof(*o));
		/* release: pairs with the acquire in pti_tag_record(), so
		 * a lookup through any tag, ours, another thread's or
		 * garbage, sees the zeroed chunk */
		atomic_store_explicit(&pti_map_dir[chunks_used], mem,
				      memory_order_release);
		chunks_used++;
		chunk_left = PTI_CHUNK_RECORDS;
	}
	chunk = atomic_load_explicit(&pti_map_dir[chunks_used - 1],
				     memory_order_relaxed);
	i = PTI_CHUNK_RECORDS - chunk_left--;
	o = &chunk[i];
	o->index = (chunks_used - 1) << PTI_CHUNK_BITS | i;
	return o;
}

static struct pti_obj *obj_alloc(void)
{
	struct pti_obj *o;

	if (free_list) {
		o = free_list;
		free_list =
			atomic_load_explicit(&o->next, memory_order_relaxed);
	} else if ((o = obj_new()) == NULL) {
		return NULL;
	}
	/* A new incarnation: tags naming the old one no longer match.
	 * relaxed: readers compare it only after a tag's acquire load */
	atomic_store_explicit(
		&o->serial,
		atomic_load_explicit(&o->serial, memory_order_relaxed) + 1,
		memory_order_relaxed);
	/* Everything but key/next, which stale lookups may still read. */
	atomic_store_explicit(
		&o->gen,
		atomic_load_explicit(&pti_fork_gen, memory_order_relaxed),
		memory_order_relaxed);
	o->kind = PTI_NORMAL;
	o->gated = false;
	atomic_store_explicit(&o->fast, false, memory_order_relaxed);
	atomic_store_explicit(&o->handed, false, memory_order_relaxed);
	atomic_store_explicit(&o->hword, 0, memory_order_relaxed);
	o->clock = CLOCK_REALTIME;
	o->lock = (liblock_lock_t)LIBLOCK_INITIALIZER;
	o->ops = NULL;
	atomic_store_explicit(&o->owner, 0, memory_order_relaxed);
	o->depth = 0;
	atomic_store_explicit(&o->users, 0, memory_order_relaxed);
	atomic_store_explicit(&o->seq, 0, memory_order_relaxed);
	atomic_store_explicit(&o->waiters, 0, memory_order_relaxed);
	return o;
}

static void obj_free(struct pti_obj *o)
{
	/* release: a lookup still walking through @o must see its seq
	 * change if it sees these (walk()) */
	atomic_store_explicit(&o->key, 0, memory_order_release);
	atomic_store_explicit(&o->next, free_list, memory_order_release);
	free_list = o;
}

static void unlink_locked(struct pti_bucket *b, _Atomic(struct pti_obj *) *link,
			  struct pti_obj *o)
{
	write_begin(b);
	/* release: see walk() */
	atomic_store_explicit(
		link, atomic_load_explicit(&o->next, memory_order_relaxed),
		memory_order_release);
	write_end(b);
}

/* Reentrant for its holder: fork handlers registered after ours run with
 * it held (our prepare handler took it) and may create records.  glibc's
 * recursive type would not do: in a fork child it refuses the unlock (the
 * thread id changed); our token survives fork. */
static _Atomic uintptr_t writer_owner;
static unsigned int writer_depth; /* under writer */

void pti_map_writer_lock(void)
{
	int rc;

	/* relaxed: only this thread can have stored its own token */
	if (atomic_load_explicit(&writer_owner, memory_order_relaxed) ==
	    PTI_SELF) {
		writer_depth++;
		return;
	}
	if ((rc = pti_real()->mutex_lock(&writer)) != 0)
		ll_fatal("interposer map lock: error %d", rc);
	atomic_store_explicit(&writer_owner, PTI_SELF, memory_order_relaxed);
	writer_depth = 1;
}

void pti_map_writer_unlock(void)
{
	if (--writer_depth > 0)
		return;
	atomic_store_explicit(&writer_owner, 0, memory_order_relaxed);
	pti_real()->mutex_unlock(&writer);
}

/* A mutex table of 2^@bits buckets holding every record of the old one
 * (none at first).  False if out of memory: the old one stays. */
static bool mutex_table_resize(unsigned int bits)
{
	struct pti_bucket *t = ll_calloc((size_t)1 << bits, sizeof(*t));
	size_t n = mutex_table ? (size_t)1 << mutex_bits : 0;

	if (!t)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct pti_obj *o = atomic_load_explicit(&mutex_table[i].head,
							 memory_order_relaxed),
			       *next;

		for (; o; o = next) {
			uint64_t h = hash(atomic_load_explicit(
				&o->key, memory_order_relaxed));
			struct pti_bucket *b = &t[h >> (64 - bits)];

			next = atomic_load_explicit(&o->next,
						    memory_order_relaxed);
			/* relaxed: only writers read this table */
			atomic_store_explicit(
				&o->next,
				atomic_load_explicit(&b->head,
						     memory_order_relaxed),
				memory_order_relaxed);
			atomic_store_explicit(&b->head, o,
					      memory_order_relaxed);
		}
	}
	ll_free(mutex_table);
	mutex_table = t;
	mutex_bits = bits;
	return true;
}

static struct pti_obj *add_locked(enum pti_table t, uintptr_t key,
				  pti_make_fn make, void *arg, bool replace,
				  pti_drop_fn drop, int *err)
{
	struct pti_bucket *b;
	_Atomic(struct pti_obj *) *link;
	struct pti_obj *old, *o;
	int rc;

	if (t == PTI_MUTEXES) {
		if (!mutex_table &&
		    !mutex_table_resize(PTI_MUTEX_BUCKET_BITS_MIN)) {
			*err = ENOMEM;
			return NULL;
		}
		/* Growing is best effort: longer chains otherwise. */
		if (mutex_records >> mutex_bits >= 2)
			mutex_table_resize(mutex_bits + 1);
	}
	b = bucket_of(t, key);
	old = find_locked(b, key, &link);
	if (old && !replace)
		return old;
	if ((o = obj_alloc()) == NULL) {
		*err = ENOMEM;
		return NULL;
	}
	if ((rc = make(o, arg)) != 0) {
		obj_free(o);
		*err = rc;
		return NULL;
	}
	if (old) {
		unlink_locked(b, link, old);
		if (drop)
			drop(old);
		obj_free(old);
	} else if (t == PTI_MUTEXES) {
		mutex_records++;
	}
	/* release: @o may be a recycled record a stale lookup still reads */
	atomic_store_explicit(&o->key, key, memory_order_release);
	atomic_store_explicit(
		&o->next, atomic_load_explicit(&b->head, memory_order_relaxed),
		memory_order_release);
	/* release: publishes @o's fields; pairs with the acquire in walk() */
	atomic_store_explicit(&b->head, o, memory_order_release);
	return o;
}

struct pti_obj *pti_map_add(enum pti_table t, uintptr_t key, pti_make_fn make,
			    void *arg, bool replace, pti_drop_fn drop, int *err)
{
	struct pti_obj *o;

	pti_map_writer_lock();
	o = add_locked(t, key, make, arg, replace, drop, err);
	pti_map_writer_unlock();
	return o;
}

int pti_map_remove(enum pti_table t, uintptr_t key,
		   int (*check)(struct pti_obj *), pti_drop_fn drop)
{
	struct pti_bucket *b;
	_Atomic(struct pti_obj *) *link;
	struct pti_obj *o;
	int rc = ENOENT;

	pti_map_writer_lock();
	b = bucket_of(t, key);
	o = find_locked(b, key, &link);
	if (o && (rc = check ? check(o) : 0) == 0) {
		unlink_locked(b, link, o);
		if (drop)
			drop(o);
		obj_free(o);
		if (t == PTI_MUTEXES)
			mutex_records--;
	}
	pti_map_writer_unlock();
	return rc;
}

void pti_map_atfork_prepare(void)
{
	pti_map_writer_lock();
}

void pti_map_atfork_release(void)
{
	pti_map_writer_unlock();
}

struct pti_obj *pti_map_get_locked(enum pti_table t, uintptr_t key)
{
	return find_locked(bucket_of(t, key), key, NULL);
}

void pti_map_for_each_locked(enum pti_table t, void (*fn)(struct pti_obj *))
{
	struct pti_bucket *table = t == PTI_MUTEXES ? mutex_table : cond_table;
	size_t n = t == PTI_MUTEXES
			   ? (mutex_table ? (size_t)1 << mutex_bits : 0)
			   : 1u << PTI_COND_BUCKET_BITS;

	for (size_t i = 0; i < n; i++) {
		struct pti_obj *o = atomic_load_explicit(&table[i].head,
							 memory_order_relaxed);

		for (; o;
		     o = atomic_load_explicit(&o->next, memory_order_relaxed))
			fn(o);
	}
}
