/* SPDX-License-Identifier: MIT */
/*
 * Per-thread statistics blocks and the bookkeeping of one hold.
 *
 * Each thread writes only its own block (struct prof_thread, ~1.5 MB of
 * lazily-zeroed anonymous memory, most of it never touched), so the
 * uncontended path does plain stores to thread-private lines.  Blocks are
 * listed in a registry under prof_reg_lock (taken only at thread start and
 * exit, at fork and at the final dump).  When a thread exits its block is
 * added into prof_total and recycled for the next new thread.
 *
 * Thread lifetime for the %-in-CS denominator: from the first profiled
 * event of the thread (its start, for threads made by pthread_create) to
 * its exit, minus the time it spent blocked in pthread_join.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <string.h>
#include <sys/mman.h>

#define PROF_DEAD ((struct prof_thread *)1)

pthread_mutex_t prof_reg_lock = PTHREAD_MUTEX_INITIALIZER;
struct prof_thread *prof_threads;
struct prof_thread *prof_total;
struct prof_blame prof_gblame[PROF_GBLAME_SLOTS];

static PROF_TLS struct prof_thread *self;
static pthread_key_t exit_key;
static _Atomic int key_made; /* 0 no, 1 yes, 2 failed */

static void key_destructor(void *v)
{
	prof_thread_exit();
}

static struct prof_thread *block_map(void)
{
	void *p = mmap(NULL, sizeof(struct prof_thread), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Caller holds prof_reg_lock.  A recycled block, or a new one. */
static struct prof_thread *block_get(void)
{
	struct prof_thread *th;

	if (!prof_total && !(prof_total = block_map()))
		return NULL;
	for (th = prof_threads; th; th = th->next)
		if (!th->live)
			return th;
	th = block_map();
	if (th) {
		th->next = prof_threads;
		prof_threads = th;
	}
	return th;
}

static struct prof_thread *thread_new(void)
{
	struct prof_thread *th;

	prof_busy++;
	if (atomic_load_explicit(&key_made, memory_order_relaxed) == 0) {
		int zero = 0;
		/* relaxed: the key is created under prof_reg_lock below;
		 * this flag only elects the creator */
		prof_real.mutex_lock(&prof_reg_lock);
		if (atomic_compare_exchange_strong_explicit(
			    &key_made, &zero, 1, memory_order_relaxed,
			    memory_order_relaxed) &&
		    pthread_key_create(&exit_key, key_destructor) != 0)
			atomic_store_explicit(&key_made, 2,
					      memory_order_relaxed);
		prof_real.mutex_unlock(&prof_reg_lock);
	}
	prof_real.mutex_lock(&prof_reg_lock);
	th = block_get();
	if (th) {
		th->live = true;
		th->t_start = prof_now();
		th->papi_set = -1;
		th->rng = (th->t_start ^ (uintptr_t)th) | 1;
	}
	prof_real.mutex_unlock(&prof_reg_lock);
	if (!th) {
		prof_log("out of memory for a thread block: thread not "
			 "profiled");
		self = PROF_DEAD;
	} else {
		th->papi_set = prof_papi_thread();
		if (atomic_load_explicit(&key_made, memory_order_relaxed) ==
			    1 &&
		    pthread_setspecific(exit_key, th) != 0)
			prof_log("pthread_setspecific failed: this thread's "
				 "counts are kept only if it ends through "
				 "pthread_exit or a profiled pthread_create");
		self = th;
	}
	prof_busy--;
	return th;
}

struct prof_thread *prof_self(void)
{
	struct prof_thread *th = self;

	if (prof_likely(th > PROF_DEAD && !prof_busy &&
			atomic_load_explicit(&prof_on, memory_order_relaxed)))
		return th;
	if (th == PROF_DEAD || prof_busy ||
	    !atomic_load_explicit(&prof_on, memory_order_relaxed))
		return NULL;
	return thread_new();
}

void prof_thread_exit(void)
{
	struct prof_thread *th = self;
	uint64_t now = prof_now();

	if (th <= PROF_DEAD)
		return;
	prof_busy++;
	self = PROF_DEAD; /* later destructors' locks go unprofiled */
	prof_real.mutex_lock(&prof_reg_lock);
	if (atomic_load_explicit(&prof_on, memory_order_relaxed)) {
		prof_sum_into(prof_total, th, now);
		prof_zero(th);
		th->live = false;
	}
	prof_real.mutex_unlock(&prof_reg_lock);
	prof_busy--;
}

/* ---- summing ---------------------------------------------------------- */

static void blame_add(struct prof_blame *tab, unsigned size, uintptr_t ret,
		      int site, uint64_t cycles, uint64_t count)
{
	uint64_t h = (ret * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)site;

	for (unsigned i = 0; i < 16; i++) {
		struct prof_blame *b = &tab[(h + i) & (size - 1)];

		if (b->ret == 0) {
			b->ret = ret;
			b->site = site;
		}
		if (b->ret == ret && b->site == site) {
			b->cycles += cycles;
			b->count += count;
			return;
		}
	}
	/* Table crowded: charge an anonymous release site (ret 1). */
	if (ret != 1)
		blame_add(tab, size, 1, site, cycles, count);
}

static void stat_add(struct prof_stat *d, const struct prof_stat *s)
{
	d->acq += s->acq;
	d->contended += s->contended;
	d->try_fail += s->try_fail;
	d->timed_out += s->timed_out;
	d->hold += s->hold;
	d->wait += s->wait;
	d->cs += s->cs;
	d->cond_wait += s->cond_wait;
	d->blame += s->blame;
	d->cs_misses += s->cs_misses;
	d->cs_counted += s->cs_counted;
	d->holds += s->holds;
	d->timed += s->timed;
	d->hold_u += s->hold_u;
	d->cs_u += s->cs_u;
	if (s->hold_max > d->hold_max)
		d->hold_max = s->hold_max;
	if (s->wait_max > d->wait_max)
		d->wait_max = s->wait_max;
	for (int i = 0; i < PROF_HBUCKETS; i++) {
		d->hist_hold[i] += s->hist_hold[i];
		d->hist_wait[i] += s->hist_wait[i];
	}
}

/* Caller holds prof_reg_lock.  A live @src is counted up to @now. */
void prof_sum_into(struct prof_thread *dst, struct prof_thread *src,
		   uint64_t now)
{
	for (int i = 0; i < src->max_site; i++)
		stat_add(&dst->stat[i], &src->stat[i]);
	if (src->max_site > dst->max_site)
		dst->max_site = src->max_site;
	for (int i = 0; i < PROF_BLAME_SLOTS; i++)
		if (src->blame[i].ret)
			blame_add(prof_gblame, PROF_GBLAME_SLOTS,
				  src->blame[i].ret, src->blame[i].site,
				  src->blame[i].cycles, src->blame[i].count);
	if (src->live) {
		uint64_t life = now > src->t_start ? now - src->t_start : 0;

		dst->thread_time += life > src->t_join ? life - src->t_join : 0;
		dst->threads++;
	}
	dst->thread_time += src->thread_time;
	dst->threads += src->threads;
	dst->cs_union += src->cs_union;
	dst->sections += src->sections;
	dst->sections_timed += src->sections_timed;
	dst->sections_c += src->sections_c;
	dst->union_c += src->union_c;
	dst->untracked += src->untracked;
	dst->signals += src->signals;
	dst->broadcasts += src->broadcasts;
	dst->cond_waits += src->cond_waits;
	for (int i = 0; i < PC_N; i++)
		dst->calls[i] += src->calls[i];
}

void prof_zero(struct prof_thread *th)
{
	memset(th->stat, 0, sizeof(th->stat[0]) * (size_t)th->max_site);
	memset(th->blame, 0, sizeof(th->blame));
	th->max_site = 0;
	th->thread_time = th->threads = th->untracked = 0;
	th->signals = th->broadcasts = th->cond_waits = 0;
	memset(th->calls, 0, sizeof(th->calls));
	th->cs_union = th->t_join = 0;
	th->sections = th->sections_timed = 0;
	th->sections_c = th->union_c = 0;
	th->nheld = 0;
	th->waiting_on = NULL;
}

/* The child of fork() has only the forking thread: the other blocks are
 * recycled, waiters they had registered are removed from the integrals,
 * and the counts start again from zero (the parent keeps its own). */
void prof_fork_child(void)
{
	struct prof_thread *me = self;
	unsigned nheld = me > PROF_DEAD ? me->nheld : 0;
	uint64_t t_outer = me > PROF_DEAD ? me->t_outer : 0;

	for (struct prof_thread *th = prof_threads; th; th = th->next) {
		struct prof_lock *lk = th->waiting_on;

		if (th == me || !th->live)
			continue;
		if (lk) {
			unsigned s = atomic_load_explicit(&lk->seq,
							  memory_order_relaxed);
			unsigned n = atomic_load_explicit(&lk->nwait,
							  memory_order_relaxed);
			atomic_store_explicit(&lk->seq, (s + 1) & ~1u,
					      memory_order_relaxed);
			if (n)
				atomic_store_explicit(&lk->nwait, n - 1,
						      memory_order_relaxed);
		}
		prof_zero(th);
		th->live = false;
	}
	if (prof_total)
		prof_zero(prof_total);
	memset(prof_gblame, 0, sizeof(prof_gblame));
	if (me > PROF_DEAD) {
		prof_zero(me);
		me->nheld = nheld; /* the locks it holds stay held */
		me->t_outer = t_outer;
		me->t_start = prof_now();
	}
	prof_dump_reset();
}

/* ---- one hold --------------------------------------------------------- */

void prof_hist_add(uint64_t *hist, uint64_t cycles)
{
	int b = cycles ? 64 - __builtin_clzll(cycles) : 0;

	hist[b < PROF_HBUCKETS ? b : PROF_HBUCKETS - 1]++;
}

int prof_held_find(struct prof_thread *th, const struct prof_lock *lk)
{
	for (int i = (int)th->nheld - 1; i >= 0; i--)
		if (th->held[i].lk == lk)
			return i;
	return -1;
}

void prof_acquired(struct prof_thread *th, struct prof_lock *lk, int site,
		   uint64_t t_call, uint64_t t_acq, bool contended)
{
	struct prof_stat *st = &th->stat[site];
	int i = prof_held_find(th, lk);
	uint64_t area;
	unsigned nwait;

	if (i >= 0) { /* recursive mutex: still the same hold */
		th->held[i].depth++;
		return;
	}
	if (site >= th->max_site)
		th->max_site = site + 1;
	st->acq++;
	if (contended) {
		uint64_t w = t_acq - t_call;

		st->contended++;
		st->wait += w;
		if (w > st->wait_max)
			st->wait_max = w;
		prof_hist_add(st->hist_wait, w);
	}
	if (th->nheld == PROF_HELD_MAX) {
		th->untracked++;
		return;
	}
	area = prof_lock_area(lk, t_acq, &nwait);
	if (!t_acq && nwait) {
		/* Outside the sample, but threads wait: the integral must be
		 * projected to now for this hold's blame, so read the time. */
		t_call = t_acq = prof_now();
		area = prof_lock_area(lk, t_acq, NULL);
	}
	if (th->nheld == 0) {
		th->section_c = contended;
		th->timing |= contended;
		th->t_outer = th->timing ? t_call : 0;
	}
	th->held[th->nheld++] = (struct prof_held){
		.lk = lk,
		.site = site,
		.sampled = th->timing || contended,
		.contended = contended,
		.t_call = t_call,
		.t_acq = t_acq,
		.area = area,
		.misses = prof_misses(th),
	};
}

/* Close hold @idx of th->held, released at @t_rel by a call from @caller
 * and done at @t_done; @area is the waiter integral and @misses the cache
 * miss counter, both read at @t_rel.  A hold outside the sample only
 * counts, and gets its blame (its times are read when it has some). */
void prof_released(struct prof_thread *th, int idx, uint64_t t_rel,
		   uint64_t t_done, uint64_t area, uint64_t misses,
		   uintptr_t caller)
{
	struct prof_held h = th->held[idx];
	struct prof_stat *st = &th->stat[h.site];
	uint64_t hold = t_rel > h.t_acq ? t_rel - h.t_acq : 0;
	uint64_t blame = area > h.area ? area - h.area : 0;

	for (unsigned i = (unsigned)idx + 1; i < th->nheld; i++)
		th->held[i - 1] = th->held[i];
	th->nheld--;
	if (!h.contended)
		st->holds++;
	if (h.sampled && h.t_acq) {
		uint64_t cs = t_done > h.t_call ? t_done - h.t_call : 0;

		st->hold += hold;
		if (hold > st->hold_max)
			st->hold_max = hold;
		prof_hist_add(st->hist_hold, hold);
		st->cs += cs;
		if (!h.contended) {
			st->timed++;
			st->hold_u += hold;
			st->cs_u += cs;
		}
	}
	if (th->papi_set >= 0) {
		st->cs_misses += misses - h.misses;
		st->cs_counted++;
	}
	if (blame) {
		st->blame += blame;
		blame_add(th->blame, PROF_BLAME_SLOTS, caller, h.site, blame,
			  1);
	}
	if (th->nheld == 0) {
		uint64_t u = th->t_outer && t_done > th->t_outer
				     ? t_done - th->t_outer
				     : 0;

		th->cs_union += u;
		if (th->section_c) {
			th->sections_c++;
			th->union_c += u;
		} else {
			th->sections++;
			th->sections_timed += th->t_outer != 0;
		}
	}
}
