/* SPDX-License-Identifier: MIT */
/*
 * The manager and backup threads of a server (thesis §4.1.2.1, Alg. 11).
 *
 * Manager (highest priority): every RCL_MANAGER_PERIOD_NS it checks
 * is_alive, which servicing threads set at the top of every sweep.  If it
 * is still clear, every servicing thread is blocked or stuck in a section:
 * the manager makes sure a free servicing thread exists (reactivating a
 * prepared one before creating one) and, with SCHED_FIFO, forces an
 * election: the first servicing thread not elected in the current cycle
 * (timestamps) is kept, every other one has its priority lowered and
 * raised again, which moves it to the tail of the FIFO run queue.
 * It is also woken on demand: by a section that is about to block in a
 * condition wait with no other free thread, and by the backup thread.
 * While its server is parked (idle) it sleeps, waking 10 ms, 20 ms, ...
 * up to 1 s apart only to see whether the program's threads have all
 * ended (rcl_exit_if_program_gone, server.c).
 *
 * Backup (lowest priority, SCHED_FIFO only): runs only when every
 * servicing thread and the manager are blocked; it then asks the manager
 * for a free thread, which preempts it at once.
 *
 * Degraded mode (no SCHED_FIFO): no backup, no election; the manager runs
 * at normal priority and still adds threads when is_alive stays clear,
 * and the kernel time-slices the servicing threads.  So a section that
 * spins or blocks delays its server by about two periods, never forever.
 *
 * Memory model: C11; counters shared by the threads of one CPU are
 * relaxed RMWs (thesis: "local" atomics).
 */
#include "rcl_int.h"

#include <limits.h>

static struct rcl_sthread *pop_prepared(struct rcl_server *s)
{
	/* acquire: pairs with the release push in leave_pool() */
	struct rcl_sthread *t =
		atomic_load_explicit(&s->prepared, memory_order_acquire);

	/* One popper (the manager), so no ABA: a node we read cannot be
	 * popped and pushed back before our CAS. */
	while (t && !atomic_compare_exchange_weak_explicit(
			    &s->prepared, &t, t->next_prepared,
			    memory_order_acquire, memory_order_acquire))
		;
	return t;
}

static void pool_undo(struct rcl_server *s)
{
	atomic_fetch_sub_explicit(&s->nservicing, 1, memory_order_relaxed);
}

uint32_t rcl_nfree(struct rcl_server *s)
{
	uint32_t n = 0;

	/* acquire: pairs with the release that added each thread */
	for (struct rcl_sthread *t =
		     atomic_load_explicit(&s->all, memory_order_acquire);
	     t; t = t->next_all)
		n += atomic_load_explicit(&t->is_servicing,
					  memory_order_relaxed) ==
			     RCL_SERVICING &&
		     !atomic_load_explicit(&t->in_sweep, memory_order_relaxed);
	return n;
}

void rcl_sthread_blocks(struct rcl_server *s)
{
	if (rcl_nfree(s) == 0)
		rcl_manager_need_thread(s);
}

int rcl_pool_add(struct rcl_server *s)
{
	uint32_t ts = atomic_load_explicit(&s->timestamp, memory_order_relaxed);
	struct rcl_sthread *t = pop_prepared(s);
	int rc;

	atomic_fetch_add_explicit(&s->nservicing, 1, memory_order_relaxed);
	if (t) {
		/* electable at once, as in the original code */
		atomic_store_explicit(&t->timestamp, ts - 1,
				      memory_order_relaxed);
		/* counted before the thread can serve: whoever its sections
		 * complete for must see the count (rcl_stats) */
		RCL_COUNT_INC(s->reactivated);
		/* release: pairs with the acquire wait in leave_pool() */
		atomic_store_explicit(&t->is_servicing, RCL_SERVICING,
				      memory_order_release);
		ll_futex_wake(&t->is_servicing, 1);
		return 0;
	}
	if (atomic_load_explicit(&s->nthreads, memory_order_relaxed) >=
	    RCL_MAX_THREADS) {
		pool_undo(s);
		return EAGAIN;
	}
	if ((t = ll_zalloc(sizeof(*t))) == NULL) {
		pool_undo(s);
		return ENOMEM;
	}
	t->srv = s;
	atomic_init(&t->is_servicing, RCL_SERVICING);
	atomic_init(&t->timestamp, ts - 1);
	t->next_all = atomic_load_explicit(&s->all, memory_order_relaxed);
	/* counted before the thread can serve (see above); pthread_create
	 * orders it before everything the thread does */
	RCL_COUNT_INC(s->created);
	if ((rc = rcl_thread_start(s, &t->thread, rcl_servicing_main, t,
				   RCL_PRIO_SERVICING)) != 0) {
		RCL_COUNT_ADD(s->created, (uint64_t)-1);
		ll_free(t);
		pool_undo(s);
		return rc;
	}
	/* release: rcl_stats() walks the list with acquire */
	atomic_store_explicit(&s->all, t, memory_order_release);
	atomic_fetch_add_explicit(&s->nthreads, 1, memory_order_relaxed);
	/* release: pairs with the acquire wait at the top of
	 * rcl_servicing_main(): the thread serves only once rcl_stats()
	 * can see its counters */
	atomic_store_explicit(&t->linked, 1, memory_order_release);
	ll_futex_wake(&t->linked, 1);
	return 0;
}

static void ensure_free_thread(struct rcl_server *s)
{
	static _Atomic int warned;
	int rc;

	if (rcl_nfree(s) != 0)
		return;
	if ((rc = rcl_pool_add(s)) != 0 &&
	    !atomic_exchange_explicit(&warned, 1, memory_order_relaxed))
		ll_log(LL_WARN,
		       "server on CPU %d cannot add a servicing thread: %s",
		       s->cpu, strerror(rc));
}

/* Move every servicing thread but @keep to the tail of its FIFO queue. */
static void demote_others(struct rcl_server *s, struct rcl_sthread *keep)
{
	int low = sched_get_priority_min(SCHED_FIFO);

	for (struct rcl_sthread *t =
		     atomic_load_explicit(&s->all, memory_order_relaxed);
	     t; t = t->next_all) {
		if (t == keep ||
		    atomic_load_explicit(&t->is_servicing,
					 memory_order_relaxed) != RCL_SERVICING)
			continue;
		pthread_setschedprio(t->thread, low + RCL_PRIO_BACKUP);
		pthread_setschedprio(t->thread, low + RCL_PRIO_SERVICING);
	}
}

/* Forced election (Alg. 11): a thread not elected in this cycle. */
static void elect(struct rcl_server *s)
{
	uint32_t ts = atomic_load_explicit(&s->timestamp, memory_order_relaxed);

	for (int cycle = 0; cycle < 2; cycle++, ts++) {
		for (struct rcl_sthread *t = atomic_load_explicit(
			     &s->all, memory_order_relaxed);
		     t; t = t->next_all) {
			if (atomic_load_explicit(&t->is_servicing,
						 memory_order_relaxed) !=
				    RCL_SERVICING ||
			    (int32_t)(atomic_load_explicit(
					      &t->timestamp,
					      memory_order_relaxed) -
				      ts) >= 0)
				continue;
			atomic_store_explicit(&t->timestamp, ts,
					      memory_order_relaxed);
			demote_others(s, t);
			RCL_COUNT_INC(s->elections);
			return;
		}
		/* every thread was elected once: new cycle */
		atomic_store_explicit(&s->timestamp, ts + 1,
				      memory_order_relaxed);
	}
}

static bool running(struct rcl_server *s)
{
	/* acquire: pairs with the release of state by start/stop */
	return atomic_load_explicit(&s->state, memory_order_acquire) ==
	       RCL_RUNNING;
}

/* The CLOCK_MONOTONIC time @ns from now. */
static struct timespec monotonic_in(long ns)
{
	struct timespec dl;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ns / 1000000000L;
	dl.tv_nsec += ns % 1000000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	return dl;
}

/* Sleep until the next period, a kick, or (idle server) a client.  An
 * idle server's manager also wakes after *@gone_ns to see whether the
 * program's threads are all gone, and doubles *@gone_ns each time. */
static void manager_sleep(struct rcl_server *s, uint32_t seen, long *gone_ns)
{
	struct timespec dl;

	if (atomic_load_explicit(&s->idle, memory_order_relaxed) == 1) {
		dl = monotonic_in(*gone_ns);
		if (ll_futex_wait(&s->idle, 1, &dl, CLOCK_MONOTONIC) ==
		    ETIMEDOUT) {
			rcl_exit_if_program_gone();
			if (*gone_ns < RCL_GONE_MAX_NS)
				*gone_ns *= 2;
		}
		return;
	}
	*gone_ns = RCL_GONE_FIRST_NS;
	dl = monotonic_in(RCL_MANAGER_PERIOD_NS);
	ll_futex_wait(&s->mgr_word, seen, &dl, CLOCK_MONOTONIC);
}

static void manager_loop(struct rcl_server *s)
{
	long gone_ns = RCL_GONE_FIRST_NS;

	while (running(s)) {
		uint32_t seen = atomic_load_explicit(&s->mgr_word,
						     memory_order_relaxed);

		/* acquire: pairs with the release in rcl_manager_need_thread()
		 */
		if (atomic_exchange_explicit(&s->mgr_need, 0,
					     memory_order_acquire)) {
			RCL_COUNT_INC(s->wakeups);
			ensure_free_thread(s);
			continue;
		}
		manager_sleep(s, seen, &gone_ns);
		if (!running(s))
			break;
		if (atomic_load_explicit(&s->idle, memory_order_relaxed) == 1 ||
		    atomic_load_explicit(&s->mgr_need, memory_order_relaxed))
			continue;
		RCL_COUNT_INC(s->wakeups);
		if (!atomic_load_explicit(&s->is_alive, memory_order_relaxed)) {
			RCL_COUNT_INC(s->alive_misses);
			ensure_free_thread(s);
			if (s->fifo)
				elect(s);
		}
		atomic_store_explicit(&s->is_alive, 0, memory_order_relaxed);
	}
}

void *rcl_manager_main(void *arg)
{
	struct rcl_server *s = arg;
	int rc;

	atomic_store_explicit(&s->mgr_tid, (int)syscall(SYS_gettid),
			      memory_order_relaxed);
	atomic_store_explicit(&s->is_alive, 0, memory_order_relaxed);
	rc = rcl_pool_add(s); /* the first servicing thread */
	if (rc == 0 && s->fifo) {
		rc = rcl_thread_start(s, &s->backup, rcl_backup_main, s,
				      RCL_PRIO_BACKUP);
		s->has_backup = rc == 0;
	}
	s->start_rc = rc;
	sem_post(&s->started); /* a full barrier: start_rc is visible */
	if (rc == 0)
		manager_loop(s);
	/* a tid the kernel may give to another thread once we are gone */
	atomic_store_explicit(&s->mgr_tid, 0, memory_order_relaxed);
	return NULL;
}

void rcl_manager_kick(struct rcl_server *s)
{
	/* relaxed: the word only says "look again"; mgr_need and state
	 * carry their own orderings */
	atomic_fetch_add_explicit(&s->mgr_word, 1, memory_order_relaxed);
	ll_futex_wake(&s->mgr_word, 1);
}

void rcl_manager_need_thread(struct rcl_server *s)
{
	/* release: pairs with the manager's acquire exchange */
	atomic_store_explicit(&s->mgr_need, 1, memory_order_release);
	rcl_manager_kick(s);
}

void *rcl_backup_main(void *arg)
{
	struct rcl_server *s = arg;
	const struct timespec pause = {0, 200000};

	atomic_store_explicit(&s->bak_tid, (int)syscall(SYS_gettid),
			      memory_order_relaxed);
	while (running(s)) {
		if (atomic_load_explicit(&s->idle, memory_order_relaxed) == 1) {
			/* the free thread sleeps for lack of work: fine */
			ll_futex_wait(&s->idle, 1, NULL, CLOCK_MONOTONIC);
			continue;
		}
		/* We run, so every servicing thread is blocked. */
		rcl_manager_need_thread(s);
		/* a blocked free thread (page fault) needs nothing: do not
		 * turn this into a busy loop */
		nanosleep(&pause, NULL);
	}
	atomic_store_explicit(&s->bak_tid, 0, memory_order_relaxed);
	return NULL;
}
