/* SPDX-License-Identifier: MIT */
/*
 * Per-thread statistics blocks and the bookkeeping of one hold.
 *
 * The bookkeeping of one hold (prof_acquired, prof_released) is inlined
 * into the wrappers, in prof_wrap.c.
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

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

pthread_mutex_t prof_reg_lock = PTHREAD_MUTEX_INITIALIZER;
struct prof_thread *prof_threads;
struct prof_thread *prof_total;
struct prof_blame prof_gblame[PROF_GBLAME_SLOTS];

_Atomic int prof_nlive, prof_nblocked;
int prof_ncpu = 1, prof_serial_max = 1;
static unsigned trace_ids; /* thread lives traced, under prof_reg_lock */

PROF_TLS struct prof_thread *prof_cur;
PROF_TLS unsigned long prof_thread_index;
struct prof_trow *prof_trows;
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

/* Trace mode: a timeline buffer for a new thread life (caller holds
 * prof_reg_lock); NULL if it cannot be mapped (the life is not drawn). */
static struct prof_trace *trace_new(uint64_t now)
{
	struct prof_trace *tr;
	void *p = mmap(NULL, sizeof(*tr), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	tr = p;
	tr->id = trace_ids++;
	tr->t_start = now;
	return tr;
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
		th->index = prof_thread_index;
		th->t_start = prof_now();
		th->papi_set = -1;
		th->rng = (th->t_start ^ (uintptr_t)th) | 1;
		th->trace = prof_trace_on ? trace_new(th->t_start) : NULL;
		/* relaxed: a count (prof_serialising) */
		atomic_fetch_add_explicit(&prof_nlive, 1, memory_order_relaxed);
	}
	prof_real.mutex_unlock(&prof_reg_lock);
	if (!th) {
		prof_log("out of memory for a thread block: thread not "
			 "profiled");
		prof_cur = PROF_DEAD;
	} else {
		th->papi_set = prof_papi_thread();
		if (atomic_load_explicit(&key_made, memory_order_relaxed) ==
			    1 &&
		    pthread_setspecific(exit_key, th) != 0)
			prof_log("pthread_setspecific failed: this thread's "
				 "counts are kept only if it ends through "
				 "pthread_exit or a profiled pthread_create");
		prof_cur = th;
	}
	prof_busy--;
	return th;
}

/* prof_self()'s slow path: the thread's first event, or not profiled. */
struct prof_thread *prof_self_slow(void)
{
	struct prof_thread *th = prof_cur;

	if (th > PROF_DEAD && !prof_busy &&
	    atomic_load_explicit(&prof_on, memory_order_relaxed))
		return th;
	if (th == PROF_DEAD || prof_busy ||
	    !atomic_load_explicit(&prof_on, memory_order_relaxed))
		return NULL;
	return thread_new();
}

void prof_thread_exit(void)
{
	struct prof_thread *th = prof_cur;
	uint64_t now = prof_now();

	if (th <= PROF_DEAD)
		return;
	prof_busy++;
	prof_cur = PROF_DEAD; /* later destructors' locks go unprofiled */
	prof_real.mutex_lock(&prof_reg_lock);
	if (atomic_load_explicit(&prof_on, memory_order_relaxed)) {
		struct prof_trow *row = malloc(sizeof(*row));

		if (row) { /* lost (not advised on) if out of memory */
			prof_trow_fill(row, th);
			row->next = prof_trows;
			prof_trows = row;
		}
		prof_sum_into(prof_total, th, now);
		if (th->trace) { /* kept for the dump */
			th->trace->t_end = now;
			th->trace->next = prof_traces;
			prof_traces = th->trace;
			th->trace = NULL;
		}
		prof_zero(th);
		th->live = false;
		/* relaxed: a count (prof_serialising) */
		atomic_fetch_sub_explicit(&prof_nlive, 1, memory_order_relaxed);
	}
	prof_real.mutex_unlock(&prof_reg_lock);
	prof_busy--;
}

/* ---- summing ---------------------------------------------------------- */

struct prof_blame *prof_blame_add(struct prof_blame *tab, unsigned size,
				  uintptr_t ret, int site, uint64_t cycles,
				  uint64_t count)
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
			return b;
		}
	}
	/* Table crowded: charge an anonymous release site (ret 1). */
	if (ret != 1)
		return prof_blame_add(tab, size, 1, site, cycles, count);
	return NULL;
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
	d->serial += s->serial;
	d->probes += s->probes;
	d->probe_wall += s->probe_wall;
	d->probe_block += s->probe_block;
	d->probe_nblock += s->probe_nblock;
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
	for (int i = prof_next_site(src, 0); i >= 0;
	     i = prof_next_site(src, i + 1)) {
		stat_add(&dst->stat[i], &src->stat[i]);
		prof_site_touch(dst, i);
		if (i >= dst->max_site)
			dst->max_site = i + 1;
	}
	if (src->tstack_used)
		for (int i = 0; i < PROF_TSTACKS; i++)
			if (src->tstack[i].key)
				prof_tstack_merge(prof_gstacks, PROF_GSTACKS,
						  &src->tstack[i]);
	for (int i = 0; i < PROF_BLAME_SLOTS; i++)
		if (src->blame[i].ret)
			prof_blame_add(prof_gblame, PROF_GBLAME_SLOTS,
				       src->blame[i].ret, src->blame[i].site,
				       src->blame[i].cycles,
				       src->blame[i].count);
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
	for (int i = prof_next_site(th, 0); i >= 0;
	     i = prof_next_site(th, i + 1))
		memset(&th->stat[i], 0, sizeof(th->stat[i]));
	memset(th->site_bits, 0, sizeof(th->site_bits));
	memset(th->blame, 0, sizeof(th->blame));
	th->blame_last = NULL;
	th->max_site = 0;
	th->thread_time = th->threads = th->untracked = 0;
	th->signals = th->broadcasts = th->cond_waits = 0;
	memset(th->calls, 0, sizeof(th->calls));
	th->cs_union = th->t_join = 0;
	th->sections = th->sections_timed = 0;
	th->sections_c = th->union_c = 0;
	th->nheld = 0;
	th->waiting_on = NULL;
	if (th->tstack_used) {
		memset(th->tstack, 0, sizeof(th->tstack));
		th->tstack_used = false;
	}
}

/* The child of fork() has only the forking thread: the other blocks are
 * recycled, waiters they had registered are removed from the integrals,
 * and the counts start again from zero (the parent keeps its own). */
void prof_fork_child(void)
{
	struct prof_thread *me = prof_cur;
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
	memset(prof_gstacks, 0, sizeof(prof_gstacks));
	/* the locks' serialising time so far is the parent's */
	if (atomic_load_explicit(&prof_serial_used, memory_order_relaxed)) {
		struct prof_lock *t =
			atomic_load_explicit(&prof_locks, memory_order_relaxed);

		for (long i = t ? prof_lock_next_used(0) : -1; i >= 0;
		     i = prof_lock_next_used((size_t)i + 1))
			atomic_store_explicit(&t[i].serial, 0,
					      memory_order_relaxed);
		for (int i = 0; i < PROF_MAX_SITES; i++) {
			atomic_store_explicit(&prof_site_serial[i], 0,
					      memory_order_relaxed);
			atomic_store_explicit(&prof_site_rpair[i], 0,
					      memory_order_relaxed);
		}
		atomic_store_explicit(&prof_serial_used, false,
				      memory_order_relaxed);
	}
	/* the parent's timelines stay with the parent (the buffers leak in
	 * the child, as the parent's other blocks do) */
	prof_traces = NULL;
	prof_trows = NULL; /* the parent's threads' rows (leaked, as above) */
	/* relaxed: the child has one thread */
	atomic_store_explicit(&prof_nlive, me > PROF_DEAD,
			      memory_order_relaxed);
	atomic_store_explicit(&prof_nblocked, 0, memory_order_relaxed);
	if (me > PROF_DEAD) {
		prof_zero(me);
		me->nheld = nheld; /* the locks it holds stay held */
		me->t_outer = t_outer;
		me->t_start = prof_now();
		if (me->trace) {
			atomic_store_explicit(&me->trace->nev, 0,
					      memory_order_relaxed);
			me->trace->dropped = 0;
			me->trace->t_start = me->t_start;
		}
	}
	prof_dump_reset();
}

void prof_trow_fill(struct prof_trow *row, const struct prof_thread *th)
{
	row->index = th->index;
	row->n = 0;
	/* the PROF_TROW_SITES largest, by insertion into a sorted array */
	for (int id = prof_next_site(th, 0); id >= 0;
	     id = prof_next_site(th, id + 1)) {
		uint64_t a = th->stat[id].acq;
		int k;

		if (!a || (row->n == PROF_TROW_SITES &&
			   a <= row->acq[PROF_TROW_SITES - 1]))
			continue;
		k = row->n < PROF_TROW_SITES ? row->n++ : PROF_TROW_SITES - 1;
		for (; k > 0 && row->acq[k - 1] < a; k--) {
			row->acq[k] = row->acq[k - 1];
			row->site[k] = row->site[k - 1];
		}
		row->acq[k] = a;
		row->site[k] = id;
	}
}
