/* SPDX-License-Identifier: MIT */
/*
 * The per-process dump: at exit, every thread block is summed and written
 * as text to $RCLPROF_OUT/rclprof.PID.dump (written to a temporary name,
 * then renamed).  Addresses are written as (object path, offset from the
 * object's load bias) so that rcl-prof can symbolise them with addr2line
 * and nm after the process is gone.  Format: docs/PROFILER.md, "Raw dump".
 *
 * The TSC frequency is measured over the whole run against
 * CLOCK_MONOTONIC, each end read as a pair (clock_pair()); runs shorter
 * than 2 ms are padded with a short sleep.
 *
 * The writer is async-signal-safe (prof_dump_safe(), for fatal signals and
 * _exit): numbers are formatted by hand into a static buffer and written
 * with write(2); only the normal exit path symbolises addresses with
 * dladdr, which takes the loader's lock.  In signal context the addresses
 * are written raw, with a copy of /proc/self/maps for rcl-prof.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h> /* rename(2), async-signal-safe */
#include <string.h>
#include <unistd.h>

static uint64_t start_tsc;
static struct timespec start_ts;

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

/* CLOCK_MONOTONIC at *@ts and the TSC at the same moment, within half
 * the shortest of four brackets of TSC reads around the clock read: a
 * preemption or an interrupt between the two reads of one try would
 * otherwise shift a short calibration by its whole length. */
static uint64_t clock_pair(struct timespec *ts)
{
	uint64_t best = 0, tsc = 0;

	for (int i = 0; i < 4; i++) {
		struct timespec t;
		uint64_t a = prof_now(), b;

		clock_gettime(CLOCK_MONOTONIC, &t);
		b = prof_now();
		if (i == 0 || b - a < best) {
			best = b - a;
			tsc = a + (b - a) / 2;
			*ts = t;
		}
	}
	return tsc;
}

/* Process start for wall time and TSC calibration (also the fork child). */
void prof_dump_reset(void)
{
	start_tsc = clock_pair(&start_ts);
}

__attribute__((constructor(101))) static void dump_ctor(void)
{
	prof_dump_reset();
}

/* Output buffer.  Formatting is done here by hand (no stdio, no
 * allocation) so that the same writer can run in a signal handler. */
struct out {
	int fd, err;
	bool raw; /* addresses as raw values + the process's maps */
	size_t n;
	char buf[1 << 16];
};

static void flush(struct out *o)
{
	size_t off = 0;

	while (off < o->n) {
		ssize_t w = write(o->fd, o->buf + off, o->n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = 1;
			break;
		}
		off += (size_t)w;
	}
	o->n = 0;
}

static void put_mem(struct out *o, const char *p, size_t len)
{
	while (len) {
		size_t room = sizeof(o->buf) - o->n,
		       k = len < room ? len : room;

		memcpy(o->buf + o->n, p, k);
		o->n += k;
		p += k;
		len -= k;
		if (o->n == sizeof(o->buf))
			flush(o);
	}
}

static void put_s(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static void put_u(struct out *o, uint64_t v)
{
	char d[24];
	int i = (int)sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(o, d + i, sizeof(d) - (size_t)i);
}

static void put_i(struct out *o, int64_t v)
{
	if (v < 0) {
		put_s(o, "-");
		put_u(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u(o, (uint64_t)v);
	}
}

static void put_x(struct out *o, uint64_t v)
{
	char d[24];
	int i = (int)sizeof(d);

	do {
		d[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	d[--i] = 'x';
	d[--i] = '0';
	put_mem(o, d + i, sizeof(d) - (size_t)i);
}

/* " %lu" for each of @n values. */
static void put_us(struct out *o, const uint64_t *v, int n)
{
	for (int i = 0; i < n; i++) {
		put_s(o, " ");
		put_u(o, v[i]);
	}
}

/* "OFFSET SYMBOL PATH" for a code or data address.  In raw mode (signal
 * context: dladdr takes the loader's lock) "ADDRESS - @": rcl-prof
 * translates it with the "map" lines written by put_maps(). */
static void put_addr(struct out *o, const void *a)
{
	Dl_info info;
	struct link_map *lm = NULL;

	if (o->raw || !dladdr1(a, &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    !info.dli_fname || !lm) {
		put_x(o, (uintptr_t)a);
		put_s(o, o->raw ? " - @\n" : " - ?\n");
		return;
	}
	put_x(o, (uintptr_t)a - lm->l_addr);
	put_s(o, " ");
	put_s(o, info.dli_sname ? info.dli_sname : "-");
	put_s(o, " ");
	/* The main program's link map has no name, and dladdr() then gives
	 * argv[0], which a program may have rewritten (redis-server's
	 * process title): rcl-prof reads the header's exe for it. */
	put_s(o, lm->l_name && lm->l_name[0] && info.dli_fname[0]
			 ? info.dli_fname
			 : "/proc/self/exe");
	put_s(o, "\n");
}

/* /proc/self/maps, each line prefixed with "map " (raw mode only). */
static void put_maps(struct out *o)
{
	static char in[4096];
	bool bol = true;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = read(fd, in, sizeof(in))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (bol)
				put_s(o, "map ");
			put_mem(o, &in[i], 1);
			bol = in[i] == '\n';
		}
	}
	if (!bol)
		put_s(o, "\n");
	close(fd);
}

static void put_site(struct out *o, struct prof_thread *tot, int id)
{
	const struct prof_site *s = &prof_sites[id];
	const struct prof_stat *st = &tot->stat[id];
	/* acquire: pairs with the release in site_slot() */
	bool ready = atomic_load_explicit(&s->ready, memory_order_acquire);
	int nf = ready ? s->nframes : 0;
	const uint64_t v[] = {
		st->acq,	 st->contended,	  st->try_fail, st->timed_out,
		st->hold,	 st->wait,	  st->cs,	st->cond_wait,
		st->hold_max,	 st->wait_max,	  st->blame,	st->cs_misses,
		st->cs_counted,	 st->holds,	  st->timed,	st->hold_u,
		st->cs_u,	 st->serial,	  st->probes,	st->probe_wall,
		st->probe_block, st->probe_nblock};

	put_s(o, "site ");
	put_i(o, id);
	put_s(o, " ");
	put_i(o, ready ? s->kind : 0);
	put_s(o, " ");
	put_u(o, atomic_load_explicit(&s->instances, memory_order_relaxed));
	put_s(o, " ");
	put_i(o, nf);
	put_s(o, " ");
	put_i(o, ready ? s->type : 0);
	put_s(o, "\n");
	for (int i = 0; i < nf; i++) {
		put_s(o, "frame ");
		put_i(o, id);
		put_s(o, " ");
		put_i(o, i);
		put_s(o, " ");
		put_addr(o, s->frames[i]);
	}
	if (ready && s->kind == PROF_KIND_STATIC) {
		put_s(o, "obj ");
		put_i(o, id);
		put_s(o, " ");
		put_addr(o, s->obj);
	}
	put_s(o, "stat ");
	put_i(o, id);
	put_us(o, v, (int)(sizeof(v) / sizeof(v[0])));
	put_s(o, "\nhhold ");
	put_i(o, id);
	put_us(o, st->hist_hold, PROF_HBUCKETS);
	put_s(o, "\nhwait ");
	put_i(o, id);
	put_us(o, st->hist_wait, PROF_HBUCKETS);
	put_s(o, "\n");
}

/* TSC ticks per second, measured over the run (integer Hz: enough, and
 * no floating-point formatting). */
static uint64_t tsc_hz(uint64_t *wall_ns)
{
	struct timespec now;
	uint64_t t, ns;

	t = clock_pair(&now);
	ns = ns_of(&now) - ns_of(&start_ts);
	*wall_ns = ns;
	/* Each end is known within a bracket of about 100 ns: 2 ms give the
	 * rate within 0.01%, and a short-lived process (one of a test
	 * suite's many) waits at most that long. */
	if (ns < 2000000) {
		struct timespec nap = {0, (long)(2000000 - ns)};

		while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
			;
		t = clock_pair(&now);
		ns = ns_of(&now) - ns_of(&start_ts);
	}
	if (!ns)
		return 1000000000u;
	return (uint64_t)((unsigned __int128)(t - start_tsc) * 1000000000u /
			  ns);
}

static void put_kv(struct out *o, const char *key, uint64_t v)
{
	put_s(o, key);
	put_s(o, " ");
	put_u(o, v);
	put_s(o, "\n");
}

/* The program's path, read once at load time (an exec reloads us): once
 * main() has called pthread_exit(), /proc/self/exe no longer resolves (the
 * thread group's leader is a zombie), and put_addr() names the main
 * program's addresses after this path. */
static char start_exe[PATH_MAX];

__attribute__((constructor)) static void remember_exe(void)
{
	ssize_t n =
		readlink("/proc/self/exe", start_exe, sizeof(start_exe) - 1);

	start_exe[n > 0 ? n : 0] = 0;
}

static void put_header(struct out *o, struct prof_thread *tot, uint64_t now,
		       const char *ended)
{
	uint64_t wall_ns, hz = tsc_hz(&wall_ns);
	const uint64_t cond[] = {tot->cond_waits, tot->signals,
				 tot->broadcasts};
	const uint64_t sec[] = {tot->sections, tot->sections_timed,
				tot->sections_c, tot->union_c};

	put_s(o, "rclprof-dump 1\n");
	put_kv(o, "pid", (uint64_t)getpid());
	put_kv(o, "ppid", (uint64_t)getppid());
	put_s(o, "exe ");
	put_s(o, start_exe);
	put_s(o, "\n");
	put_kv(o, "tsc_hz", hz);
	put_kv(o, "wall_ns", wall_ns);
	put_kv(o, "wall_cycles", now - start_tsc);
	put_kv(o, "threads", tot->threads);
	put_kv(o, "thread_time", tot->thread_time);
	put_kv(o, "cs_union", tot->cs_union);
	put_kv(o, "untracked", tot->untracked);
	put_s(o, "cond");
	put_us(o, cond, 3);
	put_s(o, "\n");
	put_kv(o, "sample", prof_sample);
	put_s(o, "ncpu ");
	put_i(o, prof_ncpu);
	put_s(o, " ");
	put_i(o, prof_serial_max);
	put_s(o, "\n");
	put_s(o, "sections");
	put_us(o, sec, 4);
	put_s(o, "\ncalls");
	put_us(o, tot->calls, PC_N);
	put_s(o, "\nmisses ");
	put_s(o, prof_papi_status ? prof_papi_status : "counted");
	put_s(o, "\nended ");
	put_s(o, ended);
	put_s(o, "\n");
}

/* $RCLPROF_OUT, copied at start-up (getenv is not for signal handlers). */
static char out_dir[PATH_MAX];

void prof_dump_dir(const char *dir)
{
	size_t n = strlen(dir);

	if (n >= sizeof(out_dir))
		n = sizeof(out_dir) - 1;
	memcpy(out_dir, dir, n);
	out_dir[n] = 0;
}

/* "DIR/rclprof.PID.dump" (+ ".tmp" when @tmp) into @buf. */
static bool dump_path(char *buf, size_t size, bool tmp)
{
	char pid[24];
	int i = (int)sizeof(pid);
	uint64_t v = (uint64_t)getpid();
	size_t n = 0;
	const char *parts[5];

	pid[--i] = 0;
	do {
		pid[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	parts[0] = out_dir;
	parts[1] = "/rclprof.";
	parts[2] = pid + i;
	parts[3] = ".dump";
	parts[4] = tmp ? ".tmp" : "";
	for (int k = 0; k < 5; k++) {
		size_t l = strlen(parts[k]);

		if (n + l + 1 > size)
			return false;
		memcpy(buf + n, parts[k], l);
		n += l;
	}
	buf[n] = 0;
	return true;
}

/* Cycles from the process start to @t (0 before it). */
static uint64_t rel(uint64_t t)
{
	return t > start_tsc ? t - start_tsc : 0;
}

/* Each site's serialising time into @tot (the locks' integrals at @now
 * and those of retired locks), and the read side of each rwlock's write
 * side into @rpair. */
static void sum_serial(struct prof_thread *tot, uint64_t now, int *rpair)
{
	/* acquire: pairs with the release that publishes the table */
	struct prof_lock *t =
		atomic_load_explicit(&prof_locks, memory_order_acquire);

	for (int i = 0; i < PROF_MAX_SITES; i++) {
		uint64_t ser = atomic_load_explicit(&prof_site_serial[i],
						    memory_order_relaxed);

		/* a site's block is written only when it has something:
		 * each of the 2,048 blocks not yet touched would cost a
		 * page fault */
		if (ser || tot->site_bits[i / 64] & (1ull << (i % 64)))
			tot->stat[i].serial = ser;
		rpair[i] = atomic_load_explicit(&prof_site_rpair[i],
						memory_order_relaxed);
	}
	if (!t ||
	    !atomic_load_explicit(&prof_serial_used, memory_order_relaxed))
		return;
	for (long i = prof_lock_next_used(0); i >= 0;
	     i = prof_lock_next_used((size_t)i + 1)) {
		struct prof_lock *lk = &t[i];
		int site, rsite;

		if (!atomic_load_explicit(&lk->addr, memory_order_relaxed))
			continue;
		site = atomic_load_explicit(&lk->site, memory_order_relaxed);
		rsite = atomic_load_explicit(&lk->rsite, memory_order_relaxed);
		if (site < 0 || site >= PROF_MAX_SITES)
			continue;
		tot->stat[site].serial += prof_lock_serial(lk, now);
		if (rsite != site && rsite > 0 && rsite < PROF_MAX_SITES)
			rpair[site] = rsite + 1;
	}
}

/* Trace mode: one thread life's timeline (@now ends a live one). */
static void put_trace(struct out *o, const struct prof_trace *tr, uint64_t now)
{
	/* acquire: pairs with the release in trace_ev() */
	unsigned n = atomic_load_explicit(&tr->nev, memory_order_acquire);

	put_s(o, "tthread ");
	put_u(o, tr->id);
	put_s(o, " ");
	put_u(o, rel(tr->t_start));
	put_s(o, " ");
	put_u(o, rel(tr->t_end ? tr->t_end : now));
	put_s(o, " ");
	put_u(o, n);
	put_s(o, " ");
	put_u(o, tr->dropped);
	put_s(o, "\n");
	for (unsigned i = 0; i < n; i++) {
		const struct prof_ev *e = &tr->ev[i];

		put_s(o, "ev ");
		put_i(o, e->kind);
		put_s(o, " ");
		put_i(o, e->site);
		put_s(o, " ");
		put_u(o, rel(e->t0));
		put_s(o, " ");
		put_u(o, rel(e->t1));
		put_s(o, "\n");
	}
}

/* Trace mode: the stacks and every thread life's timeline. */
static void put_traces(struct out *o, uint64_t now)
{
	for (int i = 0; i < PROF_GSTACKS; i++) {
		const struct prof_tstack *e = &prof_gstacks[i];

		if (!e->key)
			continue;
		put_s(o, "stack ");
		put_i(o, e->site);
		put_s(o, " ");
		put_i(o, e->nframes);
		put_s(o, " ");
		put_u(o, e->wait);
		put_s(o, " ");
		put_u(o, e->nwaits);
		put_s(o, " ");
		put_u(o, e->hold);
		put_s(o, " ");
		put_u(o, e->nholds);
		put_s(o, "\n");
		for (int f = 0; f < e->nframes; f++) {
			put_s(o, "sframe ");
			put_i(o, f);
			put_s(o, " ");
			put_addr(o, e->frames[f]);
		}
	}
	for (const struct prof_trace *tr = prof_traces; tr; tr = tr->next)
		put_trace(o, tr, now);
	for (struct prof_thread *th = prof_threads; th; th = th->next)
		if (th->live && th->trace)
			put_trace(o, th->trace, now);
}

static void put_trow(struct out *o, const struct prof_trow *row)
{
	if (!row->n)
		return;
	put_s(o, "trow ");
	put_u(o, row->index);
	for (int i = 0; i < row->n; i++) {
		put_s(o, " ");
		put_i(o, row->site[i]);
		put_s(o, ":");
		put_u(o, row->acq[i]);
	}
	put_s(o, "\n");
}

/* The thread-by-site rows: threads that exited, then live ones. */
static void put_trows(struct out *o)
{
	static struct prof_trow live;

	for (const struct prof_trow *r = prof_trows; r; r = r->next)
		put_trow(o, r);
	for (const struct prof_thread *th = prof_threads; th; th = th->next)
		if (th->live) {
			prof_trow_fill(&live, th);
			put_trow(o, &live);
		}
}

static void write_dump(struct prof_thread *tot, uint64_t now, bool raw,
		       const char *ended)
{
	static struct out o;
	static char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	static int rpair[PROF_MAX_SITES];

	if (!dump_path(path, sizeof(path), false) ||
	    !dump_path(tmp, sizeof(tmp), true)) {
		prof_log_safe("dump path too long");
		return;
	}
	o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	o.err = 0;
	o.n = 0;
	o.raw = raw;
	if (o.fd < 0) {
		prof_log_safe2("cannot write ", tmp);
		return;
	}
	put_header(&o, tot, now, ended);
	if (raw)
		put_maps(&o);
	sum_serial(tot, now, rpair);
	/* the sites the threads touched: reading the others' blocks would
	 * fault their pages in */
	for (int id = prof_next_site(tot, 0); id >= 0;
	     id = prof_next_site(tot, id + 1))
		if (tot->stat[id].acq || tot->stat[id].try_fail ||
		    tot->stat[id].timed_out)
			put_site(&o, tot, id);
	for (int id = 0; id < tot->max_site; id++)
		if (rpair[id]) {
			put_s(&o, "rwpair ");
			put_i(&o, id);
			put_s(&o, " ");
			put_i(&o, rpair[id] - 1);
			put_s(&o, "\n");
		}
	for (int i = 0; i < PROF_GBLAME_SLOTS; i++) {
		const struct prof_blame *b = &prof_gblame[i];

		if (!b->ret)
			continue;
		put_s(&o, "blame ");
		put_i(&o, b->site);
		put_s(&o, " ");
		put_u(&o, b->cycles);
		put_s(&o, " ");
		put_u(&o, b->count);
		put_s(&o, " ");
		put_addr(&o, (const void *)(b->ret > 1 ? b->ret - 1 : 0));
	}
	put_trows(&o);
	if (prof_trace_on)
		put_traces(&o, now);
	put_s(&o, "end\n");
	flush(&o);
	if (close(o.fd) != 0 || o.err || rename(tmp, path) != 0) {
		prof_log_safe2("cannot write ", path);
		unlink(tmp);
	}
}

/* Sum the thread blocks and write the dump.  @safe: called from a signal
 * handler or _exit, where the registry lock may be held by the interrupted
 * code: it is tried for a while, then the blocks are read without it. */
static void dump(bool safe, const char *ended)
{
	uint64_t now = prof_now();
	bool locked = true;

	if (!safe) {
		prof_real.mutex_lock(&prof_reg_lock);
	} else {
		struct timespec nap = {0, 1000000};
		int tries = 0;

		while (prof_real.mutex_trylock(&prof_reg_lock) != 0)
			if (++tries == 50) {
				locked = false;
				break;
			} else {
				nanosleep(&nap, NULL);
			}
	}
	if (!prof_total) {
		if (locked)
			prof_real.mutex_unlock(&prof_reg_lock);
		prof_log_safe("no thread was profiled: nothing to write");
		return;
	}
	for (struct prof_thread *th = prof_threads; th; th = th->next)
		if (th->live)
			prof_sum_into(prof_total, th, now);
	write_dump(prof_total, now, safe, ended);
	if (locked)
		prof_real.mutex_unlock(&prof_reg_lock);
}

/* Called once, from the library destructor, with profiling already off. */
void prof_dump(void)
{
	dump(false, "exit");
}

/* Called once, from a signal handler or _exit, with profiling already
 * off; async-signal-safe (docs/PROFILER.md, "How the program ends"). */
void prof_dump_safe(const char *ended)
{
	dump(true, ended);
}
