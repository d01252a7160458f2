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
 * that leak checkers see the locks they point to), and every
 * field a lookup reads (key, next) is atomic, so a lookup that walks into
 * a record being removed and recycled reads stale values, never freed
 * memory; its seq check then fails and it retries.  Writers are rare (a
 * mutex's first use, init, destroy); one writer mutex keeps fork simple:
 * it is held across fork(), so the child's map is never half-updated.
 *
 * 2^16 buckets: 1 MiB of zero pages per table, touched only where keys
 * land; chains stay short up to about a million live mutexes.
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

#define PTI_BUCKET_BITS 16
#define PTI_NBUCKETS (1u << PTI_BUCKET_BITS)
#define PTI_CHUNK (64u * 1024u)
/* Re-check seq every this many hops: a walk through recycled records
 * could otherwise loop. */
#define PTI_HOPS_PER_CHECK 16

struct pti_bucket {
	_Atomic uint32_t seq; /* odd while a removal is in progress */
	_Atomic(struct pti_obj *) head;
};

static struct pti_bucket tables[2][PTI_NBUCKETS];
struct pti_epoch pti_map_epoch;
static pthread_mutex_t writer = PTHREAD_MUTEX_INITIALIZER;
static struct pti_obj *free_list; /* under writer */

static inline struct pti_bucket *bucket_of(enum pti_table t, uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;

	return &tables[t][h >> (64 - PTI_BUCKET_BITS)];
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
	_Atomic(struct pti_obj *) *l = &b->head;
	struct pti_obj *o;

	while ((o = atomic_load_explicit(l, memory_order_relaxed)) != NULL) {
		if (atomic_load_explicit(&o->key, memory_order_relaxed) == key)
			break;
		l = &o->next;
	}
	if (link)
		*link = l;
	return o;
}

static struct pti_obj *obj_alloc(void)
{
	struct pti_obj *o;

	if (!free_list) {
		void *mem;
		char *chunk;

		if (posix_memalign(&mem, LL_CACHELINE, PTI_CHUNK) != 0)
			return NULL;
		chunk = memset(mem, 0, PTI_CHUNK);
		for (size_t off = 0; off + sizeof(*o) <= PTI_CHUNK;
		     off += sizeof(*o)) {
			o = (struct pti_obj *)(chunk + off);
			atomic_store_explicit(&o->next, free_list,
					      memory_order_release);
			free_list = o;
		}
	}
	o = free_list;
	free_list = atomic_load_explicit(&o->next, memory_order_relaxed);
	/* Everything but key/next, which stale lookups may still read. */
	atomic_store_explicit(
		&o->gen,
		atomic_load_explicit(&pti_fork_gen, memory_order_relaxed),
		memory_order_relaxed);
	o->kind = PTI_NORMAL;
	o->gated = false;
	o->fast = false;
	o->clock = CLOCK_REALTIME;
	o->lock = (liblock_lock_t)LIBLOCK_INITIALIZER;
	o->lock_fn = NULL;
	o->unlock_fn = NULL;
	o->impl = NULL;
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

/* Writers only (or the single thread of a fork child). */
void pti_map_epoch_bump(void)
{
	uint64_t e = atomic_load_explicit(&pti_map_epoch.value,
					  memory_order_relaxed);

	/* release: pairs with the acquire in pti_mutex_lookup_slow(): a
	 * cache filled under the new value sees the unlink before it */
	atomic_store_explicit(&pti_map_epoch.value, e + 1,
			      memory_order_release);
}

static void unlink_locked(enum pti_table t, struct pti_bucket *b,
			  _Atomic(struct pti_obj *) *link, struct pti_obj *o)
{
	write_begin(b);
	/* release: see walk() */
	atomic_store_explicit(
		link, atomic_load_explicit(&o->next, memory_order_relaxed),
		memory_order_release);
	write_end(b);
	/* From here on, every cache entry naming @o is stale: obj_free()
	 * may recycle it.  Only mutex records are cached. */
	if (t == PTI_MUTEXES)
		pti_map_epoch_bump();
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

static struct pti_obj *add_locked(enum pti_table t, uintptr_t key,
				  pti_make_fn make, void *arg, bool replace,
				  pti_drop_fn drop, int *err)
{
	struct pti_bucket *b = bucket_of(t, key);
	_Atomic(struct pti_obj *) *link;
	struct pti_obj *old = find_locked(b, key, &link), *o;
	int rc;

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
		unlink_locked(t, b, link, old);
		if (drop)
			drop(old);
		obj_free(old);
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
	struct pti_bucket *b = bucket_of(t, key);
	_Atomic(struct pti_obj *) *link;
	struct pti_obj *o;
	int rc = ENOENT;

	pti_map_writer_lock();
	o = find_locked(b, key, &link);
	if (o && (rc = check ? check(o) : 0) == 0) {
		unlink_locked(t, b, link, o);
		if (drop)
			drop(o);
		obj_free(o);
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

void pti_map_for_each_locked(enum pti_table t, void (*fn)(struct pti_obj *))
{
	for (size_t i = 0; i < PTI_NBUCKETS; i++) {
		struct pti_obj *o = atomic_load_explicit(&tables[t][i].head,
							 memory_order_relaxed);

		for (; o;
		     o = atomic_load_explicit(&o->next, memory_order_relaxed))
			fn(o);
	}
}
