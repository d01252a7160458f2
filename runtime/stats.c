/* SPDX-License-Identifier: MIT */
/*
 * Per-server statistics (thesis §5.3.5.1): rcl_stats(), rcl_stats_print()
 * and RCL_STATS=1's report.  Counters are written by one thread each
 * (relaxed), summed here; see docs/RUNTIME.md for meanings:
 *   use rate            sections executed / slots scanned, over sweeps
 *                       that executed at least one section (1.0: every
 *                       scanned client had a request);
 *   false serialization active sweeps that served >= 2 distinct locks /
 *                       active sweeps (the original code's formula);
 *   slow-path rate      sweeps ending in the slow path / all sweeps.
 */
#include "rcl_int.h"

#include <stdio.h>
#include <unistd.h>

#define FOLD(f) RCL_STAT_ADD(into->f, RCL_STAT_GET(from->f))

void rcl_stats_fold(struct rcl_tstats *into, const struct rcl_tstats *from)
{
	FOLD(sweeps);
	FOLD(active_sweeps);
	FOLD(scanned_active);
	FOLD(cs);
	FOLD(cs_inline);
	FOLD(multi_lock);
	FOLD(slow_path);
	FOLD(idle_parks);
	FOLD(try_busy);
	FOLD(deferred);
	RCL_COUNT_ADD(into->shipped, RCL_STAT_GET(from->shipped));
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void fill_rates(rcl_stats_t *o)
{
	o->use_rate = ratio(o->cs, o->scanned_active);
	o->false_serialization_rate =
		ratio(o->multi_lock_sweeps, o->active_sweeps);
	o->slow_path_rate = ratio(o->slow_path, o->sweeps);
}

/* Fill @o from @s; the caller holds the server table mutex, so the
 * server's thread list is not freed under us. */
static void collect(struct rcl_server *s, rcl_stats_t *o)
{
	struct rcl_tstats sum;

	memset(&sum, 0, sizeof(sum));
	memset(o, 0, sizeof(*o));
	rcl_stats_fold(&sum, &s->retired);
	/* acquire: pairs with the release that added each thread */
	for (struct rcl_sthread *t =
		     atomic_load_explicit(&s->all, memory_order_acquire);
	     t; t = t->next_all)
		rcl_stats_fold(&sum, &t->st);
	o->cpu = s->cpu;
	o->running = atomic_load_explicit(&s->state, memory_order_relaxed) ==
		     RCL_RUNNING;
	o->fifo = s->fifo;
	o->exclusive =
		atomic_load_explicit(&s->exclusive, memory_order_relaxed);
	o->cs = RCL_STAT_GET(sum.cs);
	o->cs_inline = RCL_STAT_GET(sum.cs_inline);
	o->sweeps = RCL_STAT_GET(sum.sweeps);
	o->active_sweeps = RCL_STAT_GET(sum.active_sweeps);
	o->scanned_active = RCL_STAT_GET(sum.scanned_active);
	o->multi_lock_sweeps = RCL_STAT_GET(sum.multi_lock);
	o->slow_path = RCL_STAT_GET(sum.slow_path);
	o->idle_parks = RCL_STAT_GET(sum.idle_parks);
	o->try_busy = RCL_STAT_GET(sum.try_busy);
	o->deferred = RCL_STAT_GET(sum.deferred);
	o->shipped = RCL_STAT_GET(sum.shipped);
	o->manager_wakeups = RCL_STAT_GET(s->wakeups);
	o->alive_misses = RCL_STAT_GET(s->alive_misses);
	o->elections = RCL_STAT_GET(s->elections);
	o->threads_created = RCL_STAT_GET(s->created);
	o->threads_reactivated = RCL_STAT_GET(s->reactivated);
	o->cond_waits =
		atomic_load_explicit(&s->cond_waits, memory_order_relaxed);
	o->locks = atomic_load_explicit(&s->nlocks, memory_order_relaxed);
	o->threads = (unsigned int)o->threads_created;
	o->scan_limit = rcl_ids_limit();
	fill_rates(o);
}

int rcl_stats(int cpu, rcl_stats_t *out)
{
	struct rcl_server *s;

	if (!out || cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	rcl_servers_lock();
	if ((s = rcl_server_lookup(cpu)) != NULL)
		collect(s, out);
	rcl_servers_unlock();
	return s ? 0 : EINVAL;
}

static int put(int fd, const char *buf, int n)
{
	if (n < 0)
		return EINVAL;
	for (int off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, (size_t)(n - off));

		if (w < 0)
			return errno;
		off += (int)w;
	}
	return 0;
}

static int print_one(int fd, const rcl_stats_t *o)
{
	char buf[1024];
	int n = snprintf(
		buf, sizeof(buf),
		"rcl: server cpu %d (%s%s%s)\n"
		"rcl:   critical sections %llu remote, %llu inline (nested)\n"
		"rcl:   use rate %.3f  false serialization rate %.3f  "
		"slow-path rate %.4f\n"
		"rcl:   sweeps %llu (%llu active)  manager wake-ups %llu  "
		"is_alive misses %llu  elections %llu\n"
		"rcl:   servicing threads created %llu, reactivated %llu  "
		"idle parks %llu  cond waits %llu  tryexec refused %llu\n"
		"rcl:   requests deferred to held sections %llu  shipped "
		"sections %llu\n",
		o->cpu, o->running ? "running" : "stopped",
		o->fifo ? ", SCHED_FIFO" : ", degraded",
		o->exclusive ? ", reserved CPU" : ", shared CPU",
		(unsigned long long)o->cs, (unsigned long long)o->cs_inline,
		o->use_rate, o->false_serialization_rate, o->slow_path_rate,
		(unsigned long long)o->sweeps,
		(unsigned long long)o->active_sweeps,
		(unsigned long long)o->manager_wakeups,
		(unsigned long long)o->alive_misses,
		(unsigned long long)o->elections,
		(unsigned long long)o->threads_created,
		(unsigned long long)o->threads_reactivated,
		(unsigned long long)o->idle_parks,
		(unsigned long long)o->cond_waits,
		(unsigned long long)o->try_busy,
		(unsigned long long)o->deferred,
		(unsigned long long)o->shipped);

	if (!RCL_LOCK_STATS && n >= 0 && n < (int)sizeof(buf))
		n += snprintf(
			buf + n, sizeof(buf) - (size_t)n,
			"rcl:   (sections, sweeps, parks and refusals not "
			"counted: built with --disable-lock-stats)\n");
	return put(fd, buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1);
}

int rcl_stats_print(int fd)
{
	rcl_stats_t o;
	int rc;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (rcl_stats(c, &o) == 0 && (rc = print_one(fd, &o)) != 0)
			return rc;
	return 0;
}
