/* SPDX-License-Identifier: MIT */
/*
 * Lock identity: the site table (one entry per allocation site) and the
 * mutex table (one entry per mutex address).
 *
 * Both are open-addressing hash tables that only grow: a slot is claimed
 * with a CAS on its key and never freed, so lookups need no lock and a
 * reader never sees a slot change owner.  A destroyed mutex keeps its
 * slot; pthread_mutex_init on the same address re-points it to the new
 * site, and a use after destroy without init is treated as a first use.
 *
 * Site key: a hash of the return addresses of the init call (or of the
 * first use, for PTHREAD_MUTEX_INITIALIZER mutexes that are not globals),
 * $RCLPROF_DEPTH frames deep (default 4).  A global mutex is keyed by its
 * own address and named by its symbol at report time.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdlib.h>
#include <sys/mman.h>

struct prof_site prof_sites[PROF_MAX_SITES];
static struct prof_lock *locks;	      /* 2^PROF_LOCK_BITS entries, mmap'd */
struct prof_lock *_Atomic prof_locks; /* `locks`, once published */
static _Atomic int locks_state;	      /* 0 none, 1 mapping, 2 ready, 3 failed */

_Atomic uint64_t prof_lock_used[((size_t)1 << PROF_LOCK_BITS) / 64];

long prof_lock_next_used(size_t from)
{
	const size_t words = ((size_t)1 << PROF_LOCK_BITS) / 64;

	for (size_t w = from / 64; w < words; w++) {
		/* relaxed: see prof_lock_lookup() */
		uint64_t bits = atomic_load_explicit(&prof_lock_used[w],
						     memory_order_relaxed);

		if (w == from / 64)
			bits &= ~0ull << (from % 64);
		if (bits)
			return (long)(w * 64 + (size_t)__builtin_ctzll(bits));
	}
	return -1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x ? x : 1;
}

static int depth(void)
{
	/* relaxed: threads that race here compute the same value */
	static _Atomic int cached;
	int d = atomic_load_explicit(&cached, memory_order_relaxed);
	const char *e;

	if (d == 0) {
		e = getenv("RCLPROF_DEPTH");
		d = e ? atoi(e) : 4;
		if (d < 1 || d > PROF_DEPTH)
			d = 4;
		atomic_store_explicit(&cached, d, memory_order_relaxed);
	}
	return d;
}

/* Claim or find the site slot for @key; fill it on first claim. */
static int site_slot(uint64_t key, int kind, int type, const void *obj,
		     void **fr, int n)
{
	if (type != PROF_TYPE_MUTEX) /* mutexes keep their keys (and ids) */
		key = mix(key ^ (uint64_t)type);
	for (unsigned i = 0; i < PROF_MAX_SITES; i++) {
		unsigned idx = (unsigned)(key + i) & (PROF_MAX_SITES - 1);
		struct prof_site *s = &prof_sites[idx];
		uint64_t k =
			atomic_load_explicit(&s->key, memory_order_acquire);

		if (idx == PROF_SITE_NONE)
			continue;
		if (k == 0) {
			uint64_t zero = 0;
			/* acq_rel: the claim orders our fill below before
			 * the ready flag; pairs with the acquire load above */
			if (!atomic_compare_exchange_strong_explicit(
				    &s->key, &zero, key, memory_order_acq_rel,
				    memory_order_acquire)) {
				k = zero;
			} else {
				s->kind = kind;
				s->type = type;
				s->obj = obj;
				s->nframes = n;
				for (int j = 0; j < n; j++)
					s->frames[j] = fr[j];
				/* release: publishes the fields above; pairs
				 * with the acquire in prof_dump's reader */
				atomic_store_explicit(&s->ready, 1,
						      memory_order_release);
				return (int)idx;
			}
		}
		if (k == key)
			return (int)idx;
	}
	return PROF_SITE_NONE;
}

/* Frames from @caller outwards (our own frames dropped); count in *n. */
static uint64_t stack_key(const void *caller, void **out, int *n)
{
	void *fr[PROF_DEPTH + 8];
	int got, start = 0, d = depth();
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	got = backtrace(fr, PROF_DEPTH + 8);
	for (int i = 0; i < got; i++)
		if (fr[i] == caller) {
			start = i;
			break;
		}
	if (start == 0 && (got == 0 || fr[0] != caller)) {
		fr[0] = (void *)caller; /* no unwind info: the caller alone */
		got = 1;
	}
	*n = 0;
	for (int i = start; i < got && *n < d; i++) {
		out[(*n)++] = fr[i];
		h = mix(h ^ (uintptr_t)fr[i]);
	}
	return h;
}

/* Claim the slot(s) of a site; an rwlock gets its write side's id and,
 * in *@rsite, its read side's. */
static int claim(uint64_t key, int kind, int type, const void *obj, void **fr,
		 int n, int *rsite)
{
	int id = site_slot(key, kind, type, obj, fr, n);

	atomic_fetch_add_explicit(&prof_sites[id].instances, 1,
				  memory_order_relaxed);
	if (type == PROF_TYPE_WRLOCK) {
		*rsite = site_slot(key, kind, PROF_TYPE_RDLOCK, obj, fr, n);
		atomic_fetch_add_explicit(&prof_sites[*rsite].instances, 1,
					  memory_order_relaxed);
	}
	return id;
}

int prof_site_init(const void *caller, int type, int *rsite)
{
	void *fr[PROF_DEPTH];
	int n, id;
	uint64_t key;

	prof_busy++;
	key = stack_key(caller, fr, &n);
	id = claim(key, PROF_KIND_INIT, type, NULL, fr, n, rsite);
	prof_busy--;
	return id;
}

int prof_site_first_use(const void *m, const void *caller, int type, int *rsite)
{
	void *fr[PROF_DEPTH];
	int n, id;
	uint64_t key;
	Dl_info info;

	prof_busy++;
	key = stack_key(caller, fr, &n);
	/* A lock inside a loaded object (.data/.bss) is a global or a
	 * static: key it by address, the report names it by symbol. */
	if (dladdr(m, &info) && info.dli_fname)
		id = claim(mix((uintptr_t)m), PROF_KIND_STATIC, type, m, fr, n,
			   rsite);
	else
		id = claim(key ^ 0x5a5a5a5a, PROF_KIND_FIRST, type, NULL, fr, n,
			   rsite);
	prof_busy--;
	return id;
}

/* ---- the mutex table -------------------------------------------------- */

static struct prof_lock *table(void)
{
	int st = atomic_load_explicit(&locks_state, memory_order_acquire);
	int zero = 0;
	void *p;
	size_t len = sizeof(struct prof_lock) << PROF_LOCK_BITS;

	if (prof_likely(st == 2))
		return locks;
	if (st == 3)
		return NULL;
	/* acquire: pairs with the release below when we lose the race */
	if (!atomic_compare_exchange_strong_explicit(&locks_state, &zero, 1,
						     memory_order_acquire,
						     memory_order_acquire)) {
		while ((st = atomic_load_explicit(&locks_state,
						  memory_order_acquire)) == 1)
			sched_yield();
		return st == 2 ? locks : NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		prof_log("cannot map the mutex table: locks not profiled");
		atomic_store_explicit(&locks_state, 3, memory_order_release);
		return NULL;
	}
	locks = p;
	/* release: publishes `locks`; pairs with the acquire loads above */
	atomic_store_explicit(&locks_state, 2, memory_order_release);
	/* release: pairs with the acquire in prof_lock_get() (the inline
	 * fast path, which does not look at locks_state) */
	atomic_store_explicit(&prof_locks, locks, memory_order_release);
	return locks;
}

struct prof_lock *prof_lock_lookup(const void *m, bool create)
{
	struct prof_lock *t = table();
	uintptr_t a = (uintptr_t)m;
	uint64_t h = prof_lock_hash(a);
	const unsigned mask = (1u << PROF_LOCK_BITS) - 1;

	if (!t)
		return NULL;
	for (unsigned i = 0; i < 64; i++) {
		struct prof_lock *lk = &t[(h + i) & mask];
		uintptr_t k =
			atomic_load_explicit(&lk->addr, memory_order_relaxed);
		if (k == a)
			return lk;
		if (k != 0)
			continue;
		if (!create)
			return NULL;
		/* The site field is written after the claim: a racing
		 * reader that sees the address and site 0 waits for
		 * `ready` (prof_lock_site()). */
		if (atomic_compare_exchange_strong_explicit(
			    &lk->addr, &k, a, memory_order_relaxed,
			    memory_order_relaxed)) {
			unsigned idx = (unsigned)((h + i) & mask);

			atomic_store_explicit(&lk->rsite, PROF_SITE_NONE,
					      memory_order_relaxed);
			atomic_store_explicit(&lk->site, -1,
					      memory_order_relaxed);
			/* release: publishes site and rsite; pairs with the
			 * acquire in prof_lock_site() */
			atomic_store_explicit(&lk->ready, 1,
					      memory_order_release);
			/* relaxed: a hint for the scans, which read addr */
			atomic_fetch_or_explicit(&prof_lock_used[idx / 64],
						 1ull << (idx % 64),
						 memory_order_relaxed);
			return lk;
		}
		if (k == a)
			return lk;
	}
	return NULL;
}

/* site: >= 0 known, -1 unknown, -2 being resolved by another thread.
 * One thread resolves a first use (and counts the instance); the others
 * wait for it.  The value is only an index (the site's fields are
 * published by its own ready flag), but an rwlock's read side is stored
 * before it: release/acquire on `site` publishes `rsite`. */
int prof_lock_site(struct prof_lock *lk, const void *m, const void *caller,
		   int type)
{
	/* acquire: pairs with the release stores of `site` below and in
	 * the init wrappers (`rsite` of an rwlock) */
	int s = atomic_load_explicit(&lk->site, memory_order_acquire);

	if (prof_unlikely(s == PROF_SITE_NONE)) {
		/* unidentified, or claimed a moment ago by a thread that has
		 * not written the site yet (-1): wait for its `ready` */
		/* acquire: pairs with the release of ready in
		 * prof_lock_lookup() */
		while (!atomic_load_explicit(&lk->ready, memory_order_acquire))
			sched_yield();
		s = atomic_load_explicit(&lk->site, memory_order_acquire);
	}
	while (prof_unlikely(s < 0)) {
		int unknown = -1, rs = PROF_SITE_NONE;

		if (s == -1 &&
		    atomic_compare_exchange_strong_explicit(
			    &lk->site, &unknown, -2, memory_order_relaxed,
			    memory_order_relaxed)) {
			s = prof_site_first_use(m, caller, type, &rs);
			atomic_store_explicit(&lk->rsite, rs,
					      memory_order_relaxed);
			atomic_store_explicit(&lk->site, s,
					      memory_order_release);
			return s;
		}
		sched_yield();
		s = atomic_load_explicit(&lk->site, memory_order_acquire);
	}
	return s;
}

/* Seqlock read of (serial, nwait, serial_on, t_last), projected to @now
 * (bounded: also called from the dump). */
uint64_t prof_lock_serial(struct prof_lock *lk, uint64_t now)
{
	unsigned s1, s2, n, on;
	uint64_t ser, last;
	int tries = 0;

	do {
		/* acquire: as in prof_lock_area() */
		s1 = atomic_load_explicit(&lk->seq, memory_order_acquire);
		ser = atomic_load_explicit(&lk->serial, memory_order_relaxed);
		n = atomic_load_explicit(&lk->nwait, memory_order_relaxed);
		on = atomic_load_explicit(&lk->serial_on, memory_order_relaxed);
		last = atomic_load_explicit(&lk->t_last, memory_order_relaxed);
		/* acquire fence: as in prof_lock_area() */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&lk->seq, memory_order_relaxed);
		/* bounded: the dump may run in a signal handler that
		 * interrupted a writer (then the last values are taken) */
	} while (((s1 & 1) || s1 != s2) && ++tries < 1000);
	if (n && on && now > last)
		ser += now - last;
	return ser;
}

void prof_lock_retire(struct prof_lock *lk)
{
	int site = atomic_load_explicit(&lk->site, memory_order_relaxed);
	int rsite = atomic_load_explicit(&lk->rsite, memory_order_relaxed);
	uint64_t ser;

	if (!atomic_load_explicit(&prof_serial_used, memory_order_relaxed) ||
	    site < 0 || site >= PROF_MAX_SITES)
		return;
	ser = prof_lock_serial(lk, prof_now());
	/* relaxed: a sum read once at the dump; a lock being destroyed or
	 * re-initialised has no waiter (or the program is wrong) */
	atomic_store_explicit(&lk->serial, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&prof_site_serial[site], ser,
				  memory_order_relaxed);
	if (rsite != site && rsite > 0 && rsite < PROF_MAX_SITES)
		atomic_store_explicit(&prof_site_rpair[site], rsite + 1,
				      memory_order_relaxed);
}

void prof_lock_wait_edge(struct prof_lock *lk, uint64_t now, int delta)
{
	unsigned s, n, on;
	uint64_t last;

	for (;;) {
		s = atomic_load_explicit(&lk->seq, memory_order_relaxed);
		/* acquire: the seq word is also the writers' spinlock; pairs
		 * with the release store that ends the previous update */
		if (!(s & 1) &&
		    atomic_compare_exchange_weak_explicit(&lk->seq, &s, s + 1,
							  memory_order_acquire,
							  memory_order_relaxed))
			break;
		sched_yield();
	}
	/* release fence: readers that see the new field values also see
	 * the odd seq (pairs with the acquire fence in prof_lock_area) */
	atomic_thread_fence(memory_order_release);
	n = atomic_load_explicit(&lk->nwait, memory_order_relaxed);
	last = atomic_load_explicit(&lk->t_last, memory_order_relaxed);
	if (n && now > last) {
		atomic_store_explicit(
			&lk->area,
			atomic_load_explicit(&lk->area, memory_order_relaxed) +
				(uint64_t)n * (now - last),
			memory_order_relaxed);
		if (atomic_load_explicit(&lk->serial_on,
					 memory_order_relaxed)) {
			atomic_store_explicit(
				&lk->serial,
				atomic_load_explicit(&lk->serial,
						     memory_order_relaxed) +
					(now - last),
				memory_order_relaxed);
		}
	}
	if (now > last || n == 0)
		atomic_store_explicit(&lk->t_last, now, memory_order_relaxed);
	/* a fork child's fix-up may already have removed this waiter */
	if (delta > 0 || n > 0)
		atomic_store_explicit(&lk->nwait, (unsigned)((int)n + delta),
				      memory_order_relaxed);
	/* the predicate until the next edge (the caller has counted itself
	 * blocked or running again before this call) */
	on = prof_serialising();
	if (on) /* relaxed: read by the dump and the fork child only */
		atomic_store_explicit(&prof_serial_used, true,
				      memory_order_relaxed);
	atomic_store_explicit(&lk->serial_on, on, memory_order_relaxed);
	/* release: publishes the update; pairs with the acquire in
	 * prof_lock_area() and in the CAS above */
	atomic_store_explicit(&lk->seq, s + 2, memory_order_release);
}

/* ---- stacks (trace mode) ---------------------------------------------- */

bool prof_trace_on;
_Atomic uint64_t prof_site_serial[PROF_MAX_SITES];
_Atomic int prof_site_rpair[PROF_MAX_SITES];
_Atomic bool prof_serial_used;
struct prof_tstack prof_gstacks[PROF_GSTACKS];
struct prof_trace *prof_traces;

/* Entry for @key in @tab (@size entries, a power of two), claimed for
 * (@site, @fr[0..@n)) if free; -1 when its probe run is full. */
static int tstack_slot(struct prof_tstack *tab, unsigned size, uint64_t key,
		       int site, void *const *fr, int n)
{
	for (unsigned i = 0; i < 64; i++) {
		unsigned idx = (unsigned)(key + i) & (size - 1);
		struct prof_tstack *e = &tab[idx];

		if (e->key == 0) {
			e->key = key;
			e->site = site;
			e->nframes = n;
			for (int j = 0; j < n; j++)
				e->frames[j] = fr[j];
			return (int)idx;
		}
		if (e->key == key)
			return (int)idx;
	}
	return -1;
}

int prof_trace_stack(struct prof_thread *th, int site, const void *caller)
{
	void *fr[PROF_TDEPTH + 4];
	int got, start = -1, n, idx;
	uint64_t h = mix(0x51ed270b27e5ad1fULL ^ (uint64_t)site);

	prof_busy++; /* backtrace may take the loader's lock or allocate */
	got = backtrace(fr, PROF_TDEPTH + 4);
	prof_busy--;
	for (int i = 0; i < got; i++)
		if (fr[i] == caller) {
			start = i;
			break;
		}
	if (start < 0) { /* no unwind info: the caller alone */
		fr[0] = (void *)caller;
		start = 0;
		got = 1;
	}
	n = got - start < PROF_TDEPTH ? got - start : PROF_TDEPTH;
	for (int i = 0; i < n; i++)
		h = mix(h ^ (uintptr_t)fr[start + i]);
	idx = tstack_slot(th->tstack, PROF_TSTACKS, h, site, fr + start, n);
	if (idx < 0) /* table crowded: the site's entry without a stack */
		idx = tstack_slot(th->tstack, PROF_TSTACKS,
				  mix(0xdeadULL ^ (uint64_t)site), site, fr, 0);
	th->tstack_used = true;
	return idx;
}

void prof_tstack_merge(struct prof_tstack *dst, unsigned size,
		       const struct prof_tstack *src)
{
	int i = tstack_slot(dst, size, src->key, src->site, src->frames,
			    src->nframes);

	if (i < 0)
		i = tstack_slot(dst, size, mix(0xdeadULL ^ (uint64_t)src->site),
				src->site, src->frames, 0);
	if (i < 0)
		return;
	dst[i].wait += src->wait;
	dst[i].nwaits += src->nwaits;
	dst[i].hold += src->hold;
	dst[i].nholds += src->nholds;
}
