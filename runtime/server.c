/* SPDX-License-Identifier: MIT */
/*
 * Servers: one per CPU, created on first use, started and stopped under
 * one mutex (rare operations); the lookup of a running server is one
 * acquire load.
 *
 * Start: reserve the CPU (affinity.c) unless it is the application's last
 * one (then the server shares it and runs without SCHED_FIFO, announced
 * once), then start the manager, which starts the first servicing thread
 * and the backup.  SCHED_FIFO is refused with EPERM without the privilege:
 * the runtime then switches to degraded mode, once, with a message.
 * Stop: state STOPPING, wake every thread, join them (2 s grace for a
 * section still running), give the CPU back.  At exit every server stops
 * after RCL_STATS=1 printed its statistics, and waits for no section: a
 * servicing thread whose section sleeps in a condition wait is left as
 * it is, one still running gets 100 ms, without a word (the process ends
 * as the program's would, its other threads wherever they are).
 *
 * Memory model: the server table and states are published with release
 * and read with acquire; everything else here runs under srv_mu.
 */
#include "rcl_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t srv_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct rcl_server *) srv_table[CPU_SETSIZE];
static bool srv_exiting;	   /* under srv_mu: no restart at exit */
static bool srv_atexit_done;	   /* under srv_mu */
static bool srv_forked_in_runtime; /* under srv_mu: see free_orphans() */
/* under srv_mu: the threads of a server left to finish (stop_threads()) */
static struct rcl_sthread *srv_left[CPU_SETSIZE];

/* Name a runtime thread after its role and CPU.  A name is a diagnostic:
 * pthread_setname_np() fails only on a name over 15 bytes, which the
 * format cannot produce for a CPU below CPU_SETSIZE, so its result is not
 * worth a failure of the start. */
static void name_thread(pthread_t t, int role, int cpu)
{
	static const char *const roles[] = {
		[RCL_PRIO_BACKUP] = "bak",
		[RCL_PRIO_SERVICING] = "svc",
		[RCL_PRIO_MANAGER] = "mgr",
	};
	char name[16];

	snprintf(name, sizeof(name), "rcl-%s/%d", roles[role], cpu);
	(void)pthread_setname_np(t, name);
}

int rcl_thread_start(struct rcl_server *s, pthread_t *t, void *(*fn)(void *),
		     void *arg, int prio_off)
{
	pthread_attr_t a;
	struct sched_param sp = {0};
	sigset_t all, old;
	cpu_set_t set;
	int rc;

	if ((rc = pthread_attr_init(&a)) != 0)
		return rc;
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	rc = pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	if (!rc)
		rc = pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	if (!rc)
		rc = pthread_attr_setschedpolicy(&a, s->fifo ? SCHED_FIFO
							     : SCHED_OTHER);
	if (s->fifo)
		sp.sched_priority =
			sched_get_priority_min(SCHED_FIFO) + prio_off;
	if (!rc)
		rc = pthread_attr_setschedparam(&a, &sp);
	/* Runtime threads take no asynchronous signals.  They do take the
	 * two a delegated section's own write() raises for the thread that
	 * writes (a pipe or socket with no reader: SIGPIPE; past
	 * RLIMIT_FSIZE: SIGXFSZ), as the program's thread would have: its
	 * default action ends the process, its handler runs, SIG_IGN ignores
	 * it.  Blocked here, the write would only fail with EPIPE or EFBIG
	 * and the signal stay pending for ever.  Unless the thread that
	 * starts the server blocks them: a program whose parent blocked
	 * SIGPIPE over exec gets EPIPE from its writes, on every thread,
	 * and so from its delegated sections.  (rcl-refactor holds sections
	 * that write in a program that sets threads' signal masks itself.) */
	pthread_sigmask(SIG_SETMASK, NULL, &old);
	sigfillset(&all);
	if (!sigismember(&old, SIGPIPE))
		sigdelset(&all, SIGPIPE);
	if (!sigismember(&old, SIGXFSZ))
		sigdelset(&all, SIGXFSZ);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!rc)
		rc = pthread_create(t, &a, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (!rc)
		name_thread(*t, prio_off, s->cpu);
	return rc;
}

static struct rcl_server *server_alloc(int cpu)
{
	int node = ll_cpu_node(cpu);
	struct rcl_server *s = ll_node_alloc(sizeof(*s), node);

	if (!s)
		return NULL;
	s->reqs = ll_node_alloc(RCL_MAX_CLIENTS * sizeof(struct rcl_req), node);
	s->claims = ll_node_alloc(RCL_MAX_CLIENTS * sizeof(*s->claims), node);
	if (!s->reqs || !s->claims || sem_init(&s->started, 0, 0) != 0) {
		ll_node_free(s->reqs, RCL_MAX_CLIENTS * sizeof(struct rcl_req));
		ll_node_free((void *)s->claims,
			     RCL_MAX_CLIENTS * sizeof(*s->claims));
		ll_node_free(s, sizeof(*s));
		return NULL;
	}
	s->cpu = cpu;
	s->node = node;
	return s;
}

static void stop_threads(struct rcl_server *s, bool exiting);

/* Start the manager (and through it the pool); FIFO falls back to
 * degraded mode on EPERM. */
static int start_manager(struct rcl_server *s)
{
	int rc = rcl_thread_start(s, &s->manager, rcl_manager_main, s,
				  RCL_PRIO_MANAGER);

	if (rc == EPERM && s->fifo) {
		rcl_announce_degraded("SCHED_FIFO not permitted: run as root, "
				      "or raise RLIMIT_RTPRIO");
		s->fifo = false;
		rc = rcl_thread_start(s, &s->manager, rcl_manager_main, s,
				      RCL_PRIO_MANAGER);
	}
	if (rc != 0)
		return rc;
	while (sem_wait(&s->started) != 0)
		; /* EINTR */
	if (s->start_rc != 0) {
		rc = s->start_rc;
		stop_threads(s, false);
	}
	return rc;
}

static void at_exit(void);

static void reset(struct rcl_server *s)
{
	atomic_store_explicit(&s->is_alive, 0, memory_order_relaxed);
	atomic_store_explicit(&s->nservicing, 0, memory_order_relaxed);
	atomic_store_explicit(&s->timestamp, 1, memory_order_relaxed);
	atomic_store_explicit(&s->prepared, NULL, memory_order_relaxed);
	atomic_store_explicit(&s->idle, 0, memory_order_relaxed);
	atomic_store_explicit(&s->mgr_need, 0, memory_order_relaxed);
	atomic_store_explicit(&s->all, NULL, memory_order_relaxed);
	atomic_store_explicit(&s->nthreads, 0, memory_order_relaxed);
	/* (a fork child's copies name the parent's threads) */
	atomic_store_explicit(&s->mgr_tid, 0, memory_order_relaxed);
	atomic_store_explicit(&s->bak_tid, 0, memory_order_relaxed);
	s->has_backup = false;
}

/* fork(): srv_mu (hence affinity.c's aff_mu, only taken under it) is
 * held across it, so the child's copy is free.  First of all, a section
 * shipped to a servicing thread comes home: the fork must be its own
 * thread's (ship.c). */
static void fork_prepare(void)
{
	rcl_ship_recall();
	rcl_ship_fork(true);
	rcl_mutex_lock(&srv_mu);
}

static void fork_parent(void)
{
	rcl_mutex_unlock(&srv_mu);
	rcl_ship_fork(false);
}

/* Clear the request slots left by the parent's other threads (they do
 * not exist in the child: their requests must never run) and the claims
 * of its servicing threads.  The forking thread has no pending request.
 * Only lines that hold something are written (no copy-on-write of the
 * rest). */
static void clear_slots(struct rcl_server *s)
{
	for (uint32_t i = 0; i < RCL_MAX_CLIENTS; i++) {
		struct rcl_req *r = &s->reqs[i];

		if (atomic_load_explicit(&r->fn, memory_order_relaxed))
			atomic_store_explicit(&r->fn, NULL,
					      memory_order_relaxed);
		if (atomic_load_explicit(&s->claims[i], memory_order_relaxed))
			atomic_store_explicit(&s->claims[i], 0,
					      memory_order_relaxed);
	}
}

/* A forked child has only the forking thread: every server is stopped
 * (requests run on their clients, see client.c) and may be started again.
 * A lock word held by a parent's servicing thread for a section at the
 * fork stays held in the child, as with any mutex; one it only kept
 * between sections (servicing.c) is freed: no section held the lock.
 * Async-signal-safe: memory writes and sched_{get,set}affinity only;
 * nothing is freed or started here. */
static void fork_child(void)
{
	pid_t parent = getppid();

	for (int c = 0; c < CPU_SETSIZE; c++) {
		struct rcl_server *s = atomic_load_explicit(
			&srv_table[c], memory_order_relaxed);
		struct rcl_sthread *t, *last = NULL;

		if (!s)
			continue;
		/* see defer_to_owner(); a parent that itself deferred passes
		 * its ancestor on */
		if (atomic_load_explicit(&s->state, memory_order_relaxed) ==
			    RCL_RUNNING &&
		    s->fifo)
			atomic_store_explicit(&s->fifo_owner, parent,
					      memory_order_relaxed);
		for (t = atomic_load_explicit(&s->all, memory_order_relaxed); t;
		     t = t->next_all) {
			struct rcl_lock *k = atomic_load_explicit(
				&t->kept, memory_order_relaxed);

			/* acquire: pairs with the release that set kept after
			 * the section, whose stores we then see as they were
			 * (and kept is cleared, with a fence, before the next
			 * section's stores) */
			if (k && atomic_load_explicit(&k->kept,
						      memory_order_acquire)) {
				atomic_store_explicit(&k->kept, 0,
						      memory_order_relaxed);
				atomic_store_explicit(&k->holder, 0,
						      memory_order_relaxed);
			}
			atomic_store_explicit(&t->kept, NULL,
					      memory_order_relaxed);
			rcl_stats_fold(&s->retired, &t->st);
			memset(&t->st, 0, sizeof(t->st));
			last = t;
		}
		if (last) { /* freed by the next start, if any */
			last->next_all = s->orphans;
			s->orphans = atomic_load_explicit(&s->all,
							  memory_order_relaxed);
		}
		reset(s);
		clear_slots(s);
		atomic_store_explicit(&s->exclusive, false,
				      memory_order_relaxed);
		atomic_store_explicit(&s->state, RCL_STOPPED,
				      memory_order_relaxed);
	}
	if (rcl_self) /* sticky: its structure may be an older orphan */
		srv_forked_in_runtime = true;
	rcl_ship_forked();
	rcl_ship_fork(false);
	rcl_mutex_unlock(&srv_mu);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_setup(void)
{
	if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
		ll_fatal("cannot register the RCL runtime's fork handlers");
}

/* Every fork handler of the runtime and of liblock, registered when
 * librcl.so loads, or before that by rcl-run's interposer: before those of
 * the libraries that use it (the interposer builds locks in its own child
 * handler, which must find the runtime's mutexes released and its servers
 * stopped, and child handlers run in registration order).  In the order
 * the modules would first register them: server, affinity, lock pool,
 * client ids, then liblock's. */
void rcl_atfork_init(void)
{
	pthread_once(&fork_once, fork_setup);
	rcl_affinity_fork_init();
	rcl_pool_fork_init();
	rcl_ids_fork_init();
	ll_fork_setup();
}

static __attribute__((constructor(103))) void fork_handlers_first(void)
{
	rcl_atfork_init();
}

/* srv_mu held: free the parent's thread structures of a forked child,
 * unless the child was forked from inside a section (its only thread
 * is a copy of a servicing thread, which still uses its structure). */
static void free_orphans(struct rcl_server *s)
{
	struct rcl_sthread *t, *next;

	if (srv_forked_in_runtime)
		return;
	for (t = s->orphans; t; t = next) {
		next = t->next_all;
		ll_free(t);
	}
	s->orphans = NULL;
}

/* srv_mu held. */
static int start_server(struct rcl_server *s)
{
	int state = atomic_load_explicit(&s->state, memory_order_relaxed);
	bool excl;
	int rc;

	if (state == RCL_RUNNING)
		return 0;
	if (state == RCL_STOPPING || srv_exiting)
		return EBUSY;
	excl = rcl_affinity_can_reserve(s->cpu);
	atomic_store_explicit(&s->exclusive, excl, memory_order_relaxed);
	if (!excl)
		ll_log(LL_WARN,
		       "CPU %d is the application's last CPU: its RCL "
		       "server shares it, without SCHED_FIFO",
		       s->cpu);
	s->fifo = excl && !rcl_degraded();
	if ((rc = rcl_affinity_reserve(s->cpu, excl)) != 0)
		return rc;
	free_orphans(s);
	reset(s);
	/* release: pairs with the acquire of state by the new threads */
	atomic_store_explicit(&s->state, RCL_RUNNING, memory_order_release);
	if ((rc = start_manager(s)) != 0) {
		atomic_store_explicit(&s->state, RCL_STOPPED,
				      memory_order_relaxed);
		rcl_affinity_release(s->cpu);
		ll_log(LL_ERROR, "cannot start the RCL server on CPU %d: %s",
		       s->cpu, strerror(rc));
		return rc;
	}
	if (!srv_atexit_done && atexit(at_exit) == 0)
		srv_atexit_done = true;
	return 0;
}

/* srv_mu held.  The start reaches cancellation points (it reads sysfs,
 * it may log) on whatever thread first needs the server, a client in the
 * middle of a call: a cancel there would leave srv_mu held and the
 * server half started, so it waits until the start is done. */
static int start_locked(struct rcl_server *s)
{
	int rc, cancel_state;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	rc = start_server(s);
	pthread_setcancelstate(cancel_state, NULL);
	return rc;
}

/* srv_mu held: the server on @cpu, allocated if needed. */
static struct rcl_server *table_get(int cpu)
{
	struct rcl_server *s =
		atomic_load_explicit(&srv_table[cpu], memory_order_relaxed);

	if (!s && (s = server_alloc(cpu)) != NULL)
		/* release: pairs with the lock-free lookups */
		atomic_store_explicit(&srv_table[cpu], s, memory_order_release);
	return s;
}

static int check_cpu(int *cpu)
{
	if (*cpu == LIBLOCK_SERVER_DEFAULT && (*cpu = rcl_default_server()) < 0)
		return EINVAL;
	if (*cpu < 0 || *cpu >= CPU_SETSIZE || !ll_cpu_online(*cpu)) {
		ll_log(LL_ERROR, "RCL server CPU %d is not an online CPU",
		       *cpu);
		return EINVAL;
	}
	return 0;
}

/* Is @pid a live process?  Our parent is (getppid() changes when it
 * exits); another one is while it can be signalled (a zombie still can:
 * a reaped one cannot, and its pid is rarely reused at once). */
static bool alive(pid_t pid)
{
	int saved = errno; /* a lock call leaves the caller's errno alone */
	bool yes = pid == getppid() || kill(pid, 0) == 0 || errno == EPERM;

	errno = saved;
	return yes;
}

/* Has task @tid of this process ended (a zombie: main() after its
 * pthread_exit() stays one while other threads run)?  False if unsure. */
static bool task_ended(const char *tid)
{
	char path[320], buf[512];
	const char *state;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT; /* gone since readdir() */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "tid (comm) S ...": comm may hold spaces and parentheses */
	state = strrchr(buf, ')');
	return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

/* srv_mu held: is @tid one of the runtime's threads (a manager, a
 * backup, a servicing thread of any server)?  A thread that has not
 * recorded its tid yet is not: it counts as the program's. */
static bool runtime_tid(int tid)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		struct rcl_server *s = atomic_load_explicit(
			&srv_table[c], memory_order_acquire);

		if (!s)
			continue;
		if (atomic_load_explicit(&s->mgr_tid, memory_order_relaxed) ==
			    tid ||
		    atomic_load_explicit(&s->bak_tid, memory_order_relaxed) ==
			    tid)
			return true;
		/* acquire: pairs with the release that linked the thread */
		for (struct rcl_sthread *t = atomic_load_explicit(
			     &s->all, memory_order_acquire);
		     t; t = t->next_all)
			if (atomic_load_explicit(&t->tid,
						 memory_order_relaxed) == tid)
				return true;
	}
	return false;
}

/* Is every live thread of the process one of the runtime's?  Any doubt
 * (a /proc that cannot be read, a stop under way holding srv_mu) says
 * no. */
static bool program_gone(void)
{
	struct dirent *e;
	bool gone = true;
	DIR *d;

	/* trylock: a stop holds srv_mu while it joins this very manager */
	if (rcl_mutex_trylock(&srv_mu) != 0)
		return false;
	if (srv_exiting || (d = opendir("/proc/self/task")) == NULL) {
		rcl_mutex_unlock(&srv_mu);
		return false;
	}
	while (gone && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && !task_ended(e->d_name))
			gone = runtime_tid(atoi(e->d_name));
	closedir(d);
	rcl_mutex_unlock(&srv_mu);
	return gone;
}

/* The program's last thread would have called exit(0) (glibc does, in
 * the thread that ends last): atexit handlers, stdio buffers, status 0.
 * Done on a thread of its own, not a runtime thread: exit() runs our own
 * atexit handler, which stops the servers and joins their threads. */
static void *exit_program(void *arg)
{
	(void)arg;
	exit(0);
}

bool rcl_exit_if_program_gone(void)
{
	static _Atomic int exiting;
	pthread_attr_t a;
	pthread_t t;
	int rc;

	if (!program_gone() ||
	    atomic_exchange_explicit(&exiting, 1, memory_order_relaxed))
		return false;
	/* debug: the program's stderr stays what it was without us */
	ll_log(LL_DEBUG,
	       "every thread of the program has ended (main() ended in "
	       "pthread_exit()): exiting with status 0, as glibc would");
	if ((rc = pthread_attr_init(&a)) != 0)
		goto retry;
	rc = pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (!rc)
		rc = pthread_create(&t, &a, exit_program, NULL);
	pthread_attr_destroy(&a);
	if (!rc)
		return true;
retry: /* no thread for it now (EAGAIN): the next look tries again */
	atomic_store_explicit(&exiting, 0, memory_order_relaxed);
	return false;
}

/* srv_mu held.  Deferral: a fork child whose ancestor ran a SCHED_FIFO
 * server on this CPU at the fork does not start its own there while that
 * process lives.  Two servers on one CPU at the same real-time priorities
 * take turns only through their yields, and a dying process's backup
 * thread, the lowest of them, never gets the CPU while the other server
 * is busy: the child could not even exit, and a parent busy waiting for
 * it would wait for good.  Meanwhile the child's sections run on their
 * calling threads under the lock word (as on any stopped server), and the
 * server starts when a lock is created or a client polls
 * (rcl_server_retry_deferred()) after that process is gone.  An explicit
 * rcl_server_start() is obeyed. */
static bool defer_to_owner(struct rcl_server *s)
{
	pid_t owner =
		atomic_load_explicit(&s->fifo_owner, memory_order_relaxed);

	if (owner == 0)
		return false;
	if (alive(owner)) {
		static bool said;

		if (!said)
			ll_log(LL_INFO,
			       "process %d runs an RCL server on CPU %d: "
			       "this child runs its sections on its own "
			       "threads until it exits",
			       (int)owner, s->cpu);
		said = true;
		return true;
	}
	atomic_store_explicit(&s->fifo_owner, 0, memory_order_relaxed);
	return false;
}

void rcl_server_retry_deferred(struct rcl_server *s)
{
	static __thread unsigned int polls;

	/* trylock: the caller may be a servicing thread of another server
	 * (a nested call), which a stop holding srv_mu would be joining */
	if (++polls % RCL_DEFER_POLL != 0 || rcl_mutex_trylock(&srv_mu))
		return;
	/* a failed start said why; the sections go on running here */
	if (!srv_exiting && !defer_to_owner(s))
		(void)start_locked(s);
	rcl_mutex_unlock(&srv_mu);
}

struct rcl_server *rcl_server_get(int cpu, int *err)
{
	struct rcl_server *s;

	if ((*err = check_cpu(&cpu)) != 0)
		return NULL;
	pthread_once(&fork_once, fork_setup);
	/* acquire: pairs with table_get()'s release */
	s = atomic_load_explicit(&srv_table[cpu], memory_order_acquire);
	/* acquire: pairs with the release of RCL_RUNNING in start_locked() */
	if (s && atomic_load_explicit(&s->state, memory_order_acquire) ==
			 RCL_RUNNING)
		return s;
	rcl_mutex_lock(&srv_mu);
	s = table_get(cpu);
	*err = s ? 0 : ENOMEM;
	/* at exit, stopping, or deferred: the locks' sections run on their
	 * clients */
	if (s && !srv_exiting && !defer_to_owner(s) &&
	    (*err = start_locked(s)) == EBUSY)
		*err = 0;
	rcl_mutex_unlock(&srv_mu);
	return *err ? NULL : s;
}

int rcl_server_start(int cpu)
{
	int rc;

	if ((rc = check_cpu(&cpu)) != 0)
		return rc;
	pthread_once(&fork_once, fork_setup);
	rcl_mutex_lock(&srv_mu);
	struct rcl_server *s = table_get(cpu);
	rc = s ? start_locked(s) : ENOMEM;
	rcl_mutex_unlock(&srv_mu);
	return rc;
}

static struct timespec deadline_ms(long ms)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	return dl;
}

static struct timespec deadline_in(int seconds)
{
	return deadline_ms(seconds * 1000L);
}

/* Stop and join every thread of @s; srv_mu held (or start-up). */
static void stop_threads(struct rcl_server *s, bool exiting)
{
	struct rcl_sthread *t, *next;
	/* The manager and the backup stop at their next look at the state,
	 * but the backup has the lowest SCHED_FIFO priority of the CPU: a
	 * servicing thread spinning inside a section keeps it off the CPU
	 * until that section ends, which on a loaded machine took more than
	 * the 5 s this once allowed.  Past 30 s something is really wrong. */
	struct timespec dl = deadline_in(30);
	bool stuck = false;

	/* seq_cst (also a release for the acquire of state in every loop):
	 * with the idle store below, pairs with park()'s idle store and state
	 * load, so that no thread sleeps on idle == 1 after this wake */
	atomic_store_explicit(&s->state, RCL_STOPPING, memory_order_seq_cst);
	rcl_manager_kick(s);
	atomic_store_explicit(&s->idle, 0, memory_order_seq_cst);
	ll_futex_wake(&s->idle, INT_MAX);
	if (pthread_timedjoin_np(s->manager, NULL, &dl) != 0)
		ll_fatal(
			"the manager of the RCL server on CPU %d does not stop",
			s->cpu);
	if (s->has_backup && pthread_timedjoin_np(s->backup, NULL, &dl) != 0)
		ll_fatal("the backup of the RCL server on CPU %d does not stop",
			 s->cpu);
	/* relaxed: the manager, which built the list, was joined */
	for (t = atomic_load_explicit(&s->all, memory_order_relaxed); t;
	     t = t->next_all) {
		/* release: pairs with the acquire wait in leave_pool() */
		atomic_store_explicit(&t->is_servicing, RCL_EXIT,
				      memory_order_release);
		ll_futex_wake(&t->is_servicing, 1);
	}
	/* for all the servicing threads together */
	dl = exiting ? deadline_ms(100) : deadline_in(2);
	for (t = atomic_load_explicit(&s->all, memory_order_relaxed); t;
	     t = t->next_all) {
		/* relaxed: a hint (see in_cond); a thread that just woke from
		 * its wait is not waited for, which at exit is no loss */
		if ((exiting &&
		     atomic_load_explicit(&t->in_cond, memory_order_relaxed)) ||
		    pthread_timedjoin_np(t->thread, NULL, &dl) != 0) {
			stuck = true;
			/* left to finish its section, then to exit */
			pthread_detach(t->thread);
			continue;
		}
		rcl_stats_fold(&s->retired, &t->st);
		memset(&t->st, 0, sizeof(t->st)); /* folded once */
	}
	/* Freed only once every thread is joined: a running servicing
	 * thread walks the whole list (rcl_nfree).  A stuck one still
	 * does, so then every structure stays allocated, and on the list
	 * (a stopping server is not started again).  The server's memory
	 * is mapped per node, where a leak checker does not look: the list
	 * is also kept in srv_left, or at exit LeakSanitizer reported the
	 * structures of the threads left to finish. */
	if (stuck) {
		srv_left[s->cpu] =
			atomic_load_explicit(&s->all, memory_order_relaxed);
		if (!exiting)
			ll_log(LL_WARN,
			       "RCL server on CPU %d: a section is still "
			       "running after 2 s; its thread is left to "
			       "finish",
			       s->cpu);
		return; /* state stays STOPPING */
	}
	for (t = atomic_load_explicit(&s->all, memory_order_relaxed); t;
	     t = next) {
		next = t->next_all;
		ll_free(t);
	}
	atomic_store_explicit(&s->all, NULL, memory_order_relaxed);
	/* relaxed: nothing is published with STOPPED; readers that act on
	 * it (clients running their own requests) claim slots with CAS */
	atomic_store_explicit(&s->state, RCL_STOPPED, memory_order_relaxed);
}

static int stop_locked(struct rcl_server *s)
{
	if (atomic_load_explicit(&s->state, memory_order_relaxed) !=
	    RCL_RUNNING)
		return 0;
	if (rcl_self && rcl_self->srv == s)
		return EDEADLK; /* a section cannot stop its own server */
	stop_threads(s, srv_exiting);
	rcl_affinity_release(s->cpu);
	return atomic_load_explicit(&s->state, memory_order_relaxed) ==
			       RCL_STOPPED
		       ? 0
		       : EBUSY;
}

int rcl_server_stop(int cpu)
{
	struct rcl_server *s;
	int rc;

	if ((rc = check_cpu(&cpu)) != 0)
		return rc;
	rcl_mutex_lock(&srv_mu);
	s = atomic_load_explicit(&srv_table[cpu], memory_order_relaxed);
	rc = s ? stop_locked(s) : EINVAL;
	rcl_mutex_unlock(&srv_mu);
	return rc;
}

int rcl_shutdown(void)
{
	int rc = 0, r;

	rcl_mutex_lock(&srv_mu);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		struct rcl_server *s = atomic_load_explicit(
			&srv_table[c], memory_order_relaxed);

		if (s && (r = stop_locked(s)) != 0 && rc == 0)
			rc = r;
	}
	rcl_mutex_unlock(&srv_mu);
	return rc;
}

void rcl_servers_lock(void)
{
	rcl_mutex_lock(&srv_mu);
}

void rcl_servers_unlock(void)
{
	rcl_mutex_unlock(&srv_mu);
}

struct rcl_server *rcl_server_lookup(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return NULL;
	/* acquire: pairs with table_get()'s release */
	return atomic_load_explicit(&srv_table[cpu], memory_order_acquire);
}

static void at_exit(void)
{
	const char *env = getenv("RCL_STATS");

	if (env && strcmp(env, "1") == 0)
		rcl_stats_print(STDERR_FILENO);
	rcl_mutex_lock(&srv_mu);
	srv_exiting = true;
	rcl_mutex_unlock(&srv_mu);
	rcl_shutdown();
}
