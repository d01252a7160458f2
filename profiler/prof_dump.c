/* SPDX-License-Identifier: MIT */
/*
 * The per-process dump: at exit, every thread block is summed and written
 * as text to $RCLPROF_OUT/rclprof.PID.dump (written to a temporary name,
 * then renamed).  Addresses are written as (object path, offset from the
 * object's load bias) so that rcl-prof can symbolise them with addr2line
 * and nm after the process is gone.  Format: docs/PROFILER.md, "Raw dump".
 *
 * The TSC frequency is measured over the whole run against
 * CLOCK_MONOTONIC; runs shorter than 20 ms are padded with a short sleep.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t start_tsc;
static struct timespec start_ts;

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

/* Process start for wall time and TSC calibration (also the fork child). */
void prof_dump_reset(void)
{
	clock_gettime(CLOCK_MONOTONIC, &start_ts);
	start_tsc = prof_now();
}

__attribute__((constructor(101))) static void dump_ctor(void)
{
	prof_dump_reset();
}

struct out {
	int fd, err;
	size_t n;
	char buf[1 << 16];
};

static void flush(struct out *o)
{
	size_t off = 0;

	while (off < o->n) {
		ssize_t w = write(o->fd, o->buf + off, o->n - off);

		if (w <= 0) {
			o->err = 1;
			break;
		}
		off += (size_t)w;
	}
	o->n = 0;
}

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(o->buf) - o->n < 1024)
		flush(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->n += (size_t)n < sizeof(o->buf) - o->n
				? (size_t)n
				: sizeof(o->buf) - o->n - 1;
}

/* "OFFSET SYMBOL PATH" for a code or data address. */
static void put_addr(struct out *o, const void *a)
{
	Dl_info info;
	struct link_map *lm = NULL;

	if (!dladdr1(a, &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    !info.dli_fname || !lm) {
		put(o, "%#lx - ?\n", (unsigned long)(uintptr_t)a);
		return;
	}
	put(o, "%#lx %s %s\n", (unsigned long)((uintptr_t)a - lm->l_addr),
	    info.dli_sname ? info.dli_sname : "-",
	    info.dli_fname[0] ? info.dli_fname : "/proc/self/exe");
}

static void put_site(struct out *o, struct prof_thread *tot, int id)
{
	const struct prof_site *s = &prof_sites[id];
	const struct prof_stat *st = &tot->stat[id];
	bool ready = atomic_load_explicit(&s->ready, memory_order_acquire);
	int nf = ready ? s->nframes : 0;

	/* acquire above: pairs with the release in site_slot() */
	put(o, "site %d %d %lu %d\n", id, ready ? s->kind : 0,
	    (unsigned long)atomic_load_explicit(&s->instances,
						memory_order_relaxed),
	    nf);
	for (int i = 0; i < nf; i++) {
		put(o, "frame %d %d ", id, i);
		put_addr(o, s->frames[i]);
	}
	if (ready && s->kind == PROF_KIND_STATIC) {
		put(o, "obj %d ", id);
		put_addr(o, s->obj);
	}
	put(o, "stat %d %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu",
	    id, st->acq, st->contended, st->try_fail, st->timed_out, st->hold,
	    st->wait, st->cs, st->cond_wait, st->hold_max, st->wait_max,
	    st->blame, st->cs_misses, st->cs_counted);
	put(o, " %lu %lu %lu %lu\n", st->holds, st->timed, st->hold_u,
	    st->cs_u);
	put(o, "hhold %d", id);
	for (int i = 0; i < PROF_HBUCKETS; i++)
		put(o, " %lu", st->hist_hold[i]);
	put(o, "\nhwait %d", id);
	for (int i = 0; i < PROF_HBUCKETS; i++)
		put(o, " %lu", st->hist_wait[i]);
	put(o, "\n");
}

static double tsc_hz(uint64_t *wall_ns)
{
	struct timespec now;
	uint64_t t, ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	t = prof_now();
	ns = ns_of(&now) - ns_of(&start_ts);
	*wall_ns = ns;
	if (ns < 20000000) {
		struct timespec nap = {0, (long)(20000000 - ns)};

		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		t = prof_now();
		ns = ns_of(&now) - ns_of(&start_ts);
	}
	return ns ? (double)(t - start_tsc) * 1e9 / (double)ns : 1e9;
}

static void put_header(struct out *o, struct prof_thread *tot, uint64_t now)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t wall_ns;
	double hz = tsc_hz(&wall_ns);

	exe[n > 0 ? n : 0] = 0;
	put(o, "rclprof-dump 1\npid %d\nppid %d\nexe %s\n", (int)getpid(),
	    (int)getppid(), exe);
	put(o, "tsc_hz %.0f\nwall_ns %lu\nwall_cycles %lu\n", hz, wall_ns,
	    now - start_tsc);
	put(o, "threads %lu\nthread_time %lu\ncs_union %lu\nuntracked %lu\n",
	    tot->threads, tot->thread_time, tot->cs_union, tot->untracked);
	put(o, "cond %lu %lu %lu\n", tot->cond_waits, tot->signals,
	    tot->broadcasts);
	put(o, "sample %u\nsections %lu %lu %lu %lu\n", prof_sample,
	    tot->sections, tot->sections_timed, tot->sections_c, tot->union_c);
	put(o, "calls");
	for (int i = 0; i < PC_N; i++)
		put(o, " %lu", tot->calls[i]);
	put(o, "\nmisses %s\n",
	    prof_papi_status ? prof_papi_status : "counted");
}

static void write_dump(struct prof_thread *tot, uint64_t now)
{
	static struct out o;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	const char *dir = getenv("RCLPROF_OUT");

	snprintf(path, sizeof(path), "%s/rclprof.%d.dump", dir, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	o.err = 0;
	o.n = 0;
	if (o.fd < 0) {
		prof_log("cannot write %s: %m", tmp);
		return;
	}
	put_header(&o, tot, now);
	for (int id = 0; id < tot->max_site; id++)
		if (tot->stat[id].acq || tot->stat[id].try_fail ||
		    tot->stat[id].timed_out)
			put_site(&o, tot, id);
	for (int i = 0; i < PROF_GBLAME_SLOTS; i++) {
		const struct prof_blame *b = &prof_gblame[i];

		if (!b->ret)
			continue;
		put(&o, "blame %d %lu %lu ", b->site, b->cycles, b->count);
		put_addr(&o, (const void *)(b->ret > 1 ? b->ret - 1 : 0));
	}
	put(&o, "end\n");
	flush(&o);
	if (close(o.fd) != 0 || o.err || rename(tmp, path) != 0) {
		prof_log("cannot write %s: %m", path);
		unlink(tmp);
	}
}

/* Called once, from the library destructor, with profiling already off. */
void prof_dump(void)
{
	uint64_t now = prof_now();

	prof_real.mutex_lock(&prof_reg_lock);
	if (!prof_total) {
		prof_real.mutex_unlock(&prof_reg_lock);
		prof_log("no thread was profiled: nothing to write");
		return;
	}
	for (struct prof_thread *th = prof_threads; th; th = th->next)
		if (th->live)
			prof_sum_into(prof_total, th, now);
	write_dump(prof_total, now);
	prof_real.mutex_unlock(&prof_reg_lock);
}
