/* SPDX-License-Identifier: MIT */
/*
 * The RCL runtime's API and behaviour: CPU reservation, start/stop,
 * rcl_tryexec, idle parking, client-id recycling (sections in key
 * destructors included), mutual exclusion with
 * 1..16 clients, several servers with nested sections across them,
 * condition variables (many waiters, broadcast, timed waits), the runtime
 * threads' names.
 */
#include "rcl_test.h"

#include <dirent.h>
#include <sys/wait.h>

static bool cpu_in_my_mask(int cpu)
{
	cpu_set_t m;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(m), &m), 0);
	return CPU_ISSET(cpu, &m);
}

static atomic_int go_check, checked;
static int thread_saw_cpu = -1;

static void *early_thread(void *arg)
{
	int cpu = (int)(intptr_t)arg;

	rt_wait_flag(&go_check, 10);
	thread_saw_cpu = cpu_in_my_mask(cpu);
	atomic_store(&checked, 1);
	return NULL;
}

static void *late_thread(void *arg)
{
	return (void *)(intptr_t)cpu_in_my_mask((int)(intptr_t)arg);
}

static void *noop_cs(void *arg)
{
	return arg;
}

static void *stop_own_server_cs(void *arg)
{
	return (void *)(intptr_t)rcl_server_stop(rcl_default_server());
}

/* Existing and future threads lose the server CPU; stop gives it back;
 * sections still run after a stop (on the caller), and after a restart. */
START_TEST(reserve_stop_restart)
{
	int cpu = rcl_default_server();
	liblock_lock_t l;
	pthread_t early, late;
	void *saw;

	ck_assert_int_ge(cpu, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	rt_start(&early, early_thread, (void *)(intptr_t)cpu);
	ck_assert(cpu_in_my_mask(cpu));
	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT); /* starts the server */
	ck_assert(!cpu_in_my_mask(cpu));
	atomic_store(&go_check, 1);
	rt_wait_flag(&checked, 10);
	ck_assert_int_eq(thread_saw_cpu, 0); /* created before the start */
	rt_join(early, 10);
	rt_start(&late, late_thread, (void *)(intptr_t)cpu);
	ck_assert_int_eq(pthread_join(late, &saw), 0);
	ck_assert_ptr_eq(saw, (void *)0); /* created after the start */
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	ck_assert_ptr_eq(liblock_exec(&l, stop_own_server_cs, NULL),
			 (void *)(intptr_t)EDEADLK);
	ck_assert_int_eq(rcl_server_stop(cpu), 0);
	ck_assert(cpu_in_my_mask(cpu));
	ck_assert_int_eq(rt_stats(cpu).running, 0);
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l); /* inline */
	ck_assert_int_eq(rcl_server_start(cpu), 0);
	ck_assert(!cpu_in_my_mask(cpu));
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	ck_assert(cpu_in_my_mask(cpu));
	ck_assert_int_eq(rcl_server_start(-7), EINVAL);
	ck_assert_int_eq(rcl_server_start(100000), EINVAL);
	ck_assert_int_eq(rcl_stats(-1, NULL), EINVAL);
}
END_TEST

/* A forked child has no server thread: its sections run on the calling
 * thread, and a server started in the child works; the parent goes on. */
static int child_main(liblock_lock_t *l)
{
	liblock_lock_t l2;
	rcl_stats_t st;
	int ok;

	ok = liblock_exec(l, noop_cs, l) == l;
	ok = ok && rcl_stats(rcl_default_server(), &st) == 0 && !st.running;
	if (strcmp(LL_SANITIZER, "tsan") == 0)
		return ok ? 0 : 1; /* TSan cannot start threads after fork */
	ok = ok && rcl_server_start(LIBLOCK_SERVER_DEFAULT) == 0;
	ok = ok && liblock_init(&l2, NULL) == 0;
	ok = ok && liblock_exec(l, noop_cs, l) == l;
	ok = ok && rcl_stats(rcl_default_server(), &st) == 0 && st.running;
	ok = ok && liblock_destroy(&l2) == 0 && rcl_shutdown() == 0;
	return ok ? 0 : 1;
}

START_TEST(fork_child_runs_sections)
{
	liblock_lock_t l;
	pid_t pid;
	int status;

	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		exit(child_main(&l));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	ck_assert(rt_stats(rcl_default_server()).running);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* ---- trylock / rcl_tryexec ------------------------------------------------
 */

struct try_ctx {
	liblock_lock_t l;
	int pipefd[2];
	atomic_int inside;
	int runs;
};

static void *blocking_cs(void *arg)
{
	struct try_ctx *c = arg;
	char b;

	atomic_store(&c->inside, 1);
	ck_assert_int_eq(read(c->pipefd[0], &b, 1), 1);
	atomic_store(&c->inside, 0);
	return NULL;
}

static void *count_cs(void *arg)
{
	((struct try_ctx *)arg)->runs++;
	return arg;
}

static void *self_try_cs(void *arg) /* tryexec of our own lock, nested */
{
	struct try_ctx *c = arg;

	return (void *)(intptr_t)rcl_tryexec(&c->l, count_cs, c, NULL);
}

static void *blocker(void *arg)
{
	liblock_exec(&((struct try_ctx *)arg)->l, blocking_cs, arg);
	return NULL;
}

START_TEST(trylock_semantics)
{
	struct try_ctx c = {.runs = 0};
	pthread_t t;
	void *ret = NULL;

	ck_assert_int_eq(pipe(c.pipefd), 0);
	rt_init_rcl(&c.l, LIBLOCK_SERVER_DEFAULT);
	/* a held section excludes delegated tries (t_rcl_word has more) */
	ck_assert_int_eq(liblock_trylock(&c.l), 0);
	ck_assert_int_eq(rcl_tryexec(&c.l, count_cs, &c, &ret), EBUSY);
	ck_assert_int_eq(liblock_unlock(&c.l), 0);
	ck_assert_int_eq(c.runs, 0);
	/* free lock: runs, returns fn's result */
	ck_assert_int_eq(rcl_tryexec(&c.l, count_cs, &c, &ret), 0);
	ck_assert_ptr_eq(ret, &c);
	ck_assert_int_eq(c.runs, 1);
	/* inside its own section: busy */
	ck_assert_ptr_eq(liblock_exec(&c.l, self_try_cs, &c),
			 (void *)(intptr_t)EBUSY);
	ck_assert_int_eq(c.runs, 1);
	/* a section of the lock blocked on another servicing thread: busy */
	atomic_init(&c.inside, 0);
	rt_start(&t, blocker, &c);
	rt_wait_flag(&c.inside, 10);
	ck_assert_int_eq(rcl_tryexec(&c.l, count_cs, &c, &ret), EBUSY);
	ck_assert_int_eq(c.runs, 1);
	RT_COUNTED(
		ck_assert_uint_ge(rt_stats(rcl_default_server()).try_busy, 1));
	ck_assert_int_eq(write(c.pipefd[1], "x", 1), 1);
	rt_join(t, 10);
	ck_assert_int_eq(rcl_tryexec(&c.l, count_cs, &c, NULL), 0);
	ck_assert_int_eq(c.runs, 2);
	ck_assert_int_eq(rcl_tryexec(NULL, count_cs, &c, NULL), EINVAL);
	close(c.pipefd[0]);
	close(c.pipefd[1]);
	ck_assert_int_eq(liblock_destroy(&c.l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* An idle server parks (does not spin at RT priority), its manager stops
 * waking up, and the next request wakes it.
 *
 * The invariant: once the server sleeps in park() and no client calls,
 * nothing wakes it, so its sweeps, parks and manager activations stop
 * growing for good, over a window of any length.  The window's length is
 * not what matters, and a loaded machine may stretch it (the observer is
 * preempted) or may keep a still-active server off the CPU for a while (it
 * then looks quiet).  So: wait (bounded) for a window in which nothing
 * moved after a park was counted, then require that it stays quiet over a
 * second window; a server that never parks, or that wakes up again, fails
 * (a park counted before the last request is not enough: that request
 * woke it). */
#define PARK_WINDOW_US 200000

static bool parked_quiet(const rcl_stats_t *a, const rcl_stats_t *b)
{
	return b->idle_parks >= 1 && b->idle_parks == a->idle_parks &&
	       b->sweeps == a->sweeps;
}

START_TEST(idle_server_parks)
{
	liblock_lock_t l;
	int cpu = rcl_default_server();
	rcl_stats_t a, b, c;
	double end, t0, window;
	bool quiet = false;

	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	if (!RCL_LOCK_STATS) /* parks and sweeps are not counted */
		usleep(PARK_WINDOW_US);
	else {
		/* the idle threshold is 5 ms; allow a loaded machine 20 s */
		end = rt_now() + 20;
		b = rt_stats(cpu);
		do {
			a = b;
			usleep(PARK_WINDOW_US);
			b = rt_stats(cpu);
			quiet = parked_quiet(&a, &b);
		} while (!quiet && rt_now() < end);
		ck_assert_msg(quiet,
			      "the idle server did not park and stay "
			      "parked for %d ms within 20 s (parks %llu, "
			      "sweeps %llu)",
			      PARK_WINDOW_US / 1000,
			      (unsigned long long)b.idle_parks,
			      (unsigned long long)b.sweeps);
		/* parked: it stays so, however long the window really is
		 * (2 sweeps: a park's re-check sweep, if the server was
		 * preempted inside park() all through the quiet window) */
		t0 = rt_now();
		usleep(PARK_WINDOW_US);
		c = rt_stats(cpu);
		window = rt_now() - t0;
		ck_assert_msg(c.sweeps - b.sweeps <= 2 &&
				      c.idle_parks == b.idle_parks,
			      "a parked server woke up: %llu sweeps, %llu "
			      "parks in %.3f s",
			      (unsigned long long)(c.sweeps - b.sweeps),
			      (unsigned long long)(c.idle_parks - b.idle_parks),
			      window);
		/* the manager sleeps while the server is idle: at most one
		 * period in flight when the server parked, over both windows */
		ck_assert_uint_le(c.manager_wakeups - a.manager_wakeups, 2);
	}
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* ---- mutual exclusion, 1..16 clients --------------------------------------
 */

#define LINES 4
struct mx {
	liblock_lock_t l;
	struct {
		uint64_t v;
		char pad[120];
	} line[LINES];
	atomic_int inside, overlaps;
	atomic_long done; /* sections returned, for the stall check */
	int iters;
};

static void *mx_cs(void *arg)
{
	struct mx *m = arg;

	if (atomic_fetch_add_explicit(&m->inside, 1, memory_order_relaxed))
		atomic_fetch_add(&m->overlaps, 1);
	for (int i = 0; i < LINES; i++)
		m->line[i].v++;
	atomic_fetch_sub_explicit(&m->inside, 1, memory_order_relaxed);
	return m;
}

static void *mx_client(void *arg)
{
	struct mx *m = arg;

	for (int i = 0; i < m->iters; i++) {
		ck_assert_ptr_eq(liblock_exec(&m->l, mx_cs, m), m);
		/* relaxed: a progress count; the joins order the lines */
		atomic_fetch_add_explicit(&m->done, 1, memory_order_relaxed);
	}
	return NULL;
}

START_TEST(mutual_exclusion_1_to_16)
{
	static const int counts[] = {1, 2, 4, 8, 16};
	struct mx *m = calloc(1, sizeof(*m));
	pthread_t t[16];

	ck_assert_ptr_nonnull(m);
	rt_init_rcl(&m->l, LIBLOCK_SERVER_DEFAULT);
	m->iters = 3000;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		memset(m->line, 0, sizeof(m->line));
		atomic_store(&m->done, 0);
		for (int i = 0; i < counts[k]; i++)
			rt_start(&t[i], mx_client, m);
		/* 48,000 round trips at 16 clients: tens of seconds when the
		 * server shares a loaded CPU, not a stall */
		rt_wait_progress(&m->done, (long)counts[k] * m->iters, 30,
				 "mutual exclusion");
		for (int i = 0; i < counts[k]; i++)
			rt_join(t[i], 10);
		for (int i = 0; i < LINES; i++)
			ck_assert_uint_eq(m->line[i].v,
					  (uint64_t)counts[k] * m->iters);
	}
	ck_assert_int_eq(atomic_load(&m->overlaps), 0);
	RT_COUNTED(ck_assert_uint_ge(rt_stats(rcl_default_server()).cs,
				     31u * (uint64_t)m->iters));
	ck_assert_int_eq(liblock_destroy(&m->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(m);
}
END_TEST

/* ---- client ids are recycled: more threads than slots ------------------- */

START_TEST(thread_churn_recycles_ids)
{
	enum { BATCH = 16, ROUNDS = 270 }; /* 4,320 threads > 4,096 slots */
	struct mx *m = calloc(1, sizeof(*m));
	pthread_t t[BATCH];

	ck_assert_ptr_nonnull(m);
	rt_init_rcl(&m->l, LIBLOCK_SERVER_DEFAULT);
	m->iters = 2;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < BATCH; i++)
			rt_start(&t[i], mx_client, m);
		for (int i = 0; i < BATCH; i++)
			rt_join(t[i], 30);
	}
	ck_assert_uint_eq(m->line[0].v, (uint64_t)BATCH * ROUNDS * m->iters);
	/* ids were reused: the scanned part of the array stays small */
	ck_assert_uint_le(rt_stats(rcl_default_server()).scan_limit, BATCH + 4);
	ck_assert_int_eq(liblock_destroy(&m->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(m);
}
END_TEST

/* ---- a section in a key destructor that runs after the client id's ---- */

static pthread_key_t late_key;

/* Created after the runtime's keys, so glibc runs it after the one that
 * gives the thread's client id back (liburcu-bp's thread exit notifier
 * unregisters under its registry lock so).  The sections went to the
 * slot given back, which the server no longer scanned: the thread never
 * exited. */
static void late_exit(void *arg)
{
	struct mx *m = arg;

	for (int i = 0; i < 3; i++)
		ck_assert_ptr_eq(liblock_exec(&m->l, mx_cs, m), m);
}

static void *late_client(void *arg)
{
	struct mx *m = arg;

	ck_assert_ptr_eq(liblock_exec(&m->l, mx_cs, m), m);
	ck_assert_int_eq(pthread_setspecific(late_key, m), 0);
	return NULL;
}

START_TEST(section_in_key_destructor)
{
	enum { BATCH = 4, ROUNDS = 8 };
	struct mx *m = calloc(1, sizeof(*m));
	pthread_t t[BATCH];

	ck_assert_ptr_nonnull(m);
	rt_init_rcl(&m->l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_ptr_eq(liblock_exec(&m->l, mx_cs, m), m);
	ck_assert_int_eq(pthread_key_create(&late_key, late_exit), 0);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < BATCH; i++)
			rt_start(&t[i], late_client, m);
		for (int i = 0; i < BATCH; i++)
			rt_join(t[i], 30);
	}
	ck_assert_int_eq(atomic_load(&m->overlaps), 0);
	ck_assert_uint_eq(m->line[0].v, 1 + (uint64_t)ROUNDS * BATCH * 4);
	/* the ids the destructors took were given back too */
	ck_assert_uint_le(rt_stats(rcl_default_server()).scan_limit, BATCH + 1);
	ck_assert_int_eq(pthread_key_delete(late_key), 0);
	ck_assert_int_eq(liblock_destroy(&m->l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(m);
}
END_TEST

/* ---- several servers; nested sections across them ----------------------- */

struct multi {
	liblock_lock_t a, b, c, d; /* a, d on server 1; b, c on server 2 */
	long in_a, in_b, in_c, in_d;
	int iters;
};

static void *inner_b(void *arg)
{
	((struct multi *)arg)->in_b++;
	return arg;
}
static void *inner_d(void *arg)
{
	((struct multi *)arg)->in_d++;
	return arg;
}

static void *outer_a(void *arg) /* server 1 -> remote call to server 2 */
{
	struct multi *m = arg;

	m->in_a++;
	ck_assert_ptr_eq(liblock_exec(&m->b, inner_b, m), m);
	return m;
}

static void *outer_c(void *arg) /* server 2 -> remote call to server 1 */
{
	struct multi *m = arg;

	m->in_c++;
	ck_assert_ptr_eq(liblock_exec(&m->d, inner_d, m), m);
	return m;
}

static void *multi_client(void *arg)
{
	struct multi *m = arg;

	for (int i = 0; i < m->iters; i++) {
		liblock_exec(&m->a, outer_a, m);
		liblock_exec(&m->c, outer_c, m);
		liblock_exec(&m->b, inner_b, m);
	}
	return NULL;
}

START_TEST(multiple_servers_nested)
{
	enum { CLIENTS = 4 };
	int s1 = rcl_default_server(), s2 = s1 == 0 ? 1 : 0;
	struct multi *m = calloc(1, sizeof(*m));
	pthread_t t[CLIENTS];
	rcl_stats_t st1, st2;

	ck_assert_ptr_nonnull(m);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	rt_init_rcl(&m->a, s1); /* s1 first: it gets a reserved CPU */
	rt_init_rcl(&m->d, s1);
	rt_init_rcl(&m->b, s2); /* with 2 CPUs, s2 shares the last one */
	rt_init_rcl(&m->c, s2);
	m->iters = 400;
	for (int i = 0; i < CLIENTS; i++)
		rt_start(&t[i], multi_client, m);
	for (int i = 0; i < CLIENTS; i++)
		rt_join(t[i], 50);
	ck_assert_int_eq(m->in_a, CLIENTS * m->iters);
	ck_assert_int_eq(m->in_b, 2L * CLIENTS * m->iters);
	ck_assert_int_eq(m->in_c, CLIENTS * m->iters);
	ck_assert_int_eq(m->in_d, CLIENTS * m->iters);
	st1 = rt_stats(s1);
	st2 = rt_stats(s2);
	ck_assert(st1.exclusive);
	if (sysconf(_SC_NPROCESSORS_ONLN) == 2)
		ck_assert(!st2.exclusive && !st2.fifo);
	RT_COUNTED(ck_assert_uint_ge(st1.cs, 2u * CLIENTS * m->iters));
	RT_COUNTED(ck_assert_uint_ge(st2.cs, 3u * CLIENTS * m->iters));
	ck_assert_int_eq(liblock_destroy(&m->a), 0);
	ck_assert_int_eq(liblock_destroy(&m->b), 0);
	ck_assert_int_eq(liblock_destroy(&m->c), 0);
	ck_assert_int_eq(liblock_destroy(&m->d), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	free(m);
}
END_TEST

/* ---- the runtime threads carry names: top -H, ps -L, perf, gdb --------- */

/* How many threads of this process are named @name. */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue; /* the thread ended meanwhile */
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		n += strcmp(comm, name) == 0;
	}
	closedir(d);
	return n;
}

START_TEST(runtime_threads_named)
{
	liblock_lock_t l;
	int cpu = rcl_default_server();
	char svc[16], mgr[16], bak[16];

	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT);
	ck_assert_ptr_eq(liblock_exec(&l, noop_cs, &l), &l);
	snprintf(svc, sizeof(svc), "rcl-svc/%d", cpu);
	snprintf(mgr, sizeof(mgr), "rcl-mgr/%d", cpu);
	snprintf(bak, sizeof(bak), "rcl-bak/%d", cpu);
	ck_assert_int_ge(threads_named(svc), 1);
	ck_assert_int_eq(threads_named(mgr), 1);
	/* the backup thread exists with SCHED_FIFO only */
	ck_assert_int_eq(threads_named(bak), rt_stats(cpu).fifo ? 1 : 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_server_stop(cpu), 0);
	ck_assert_int_eq(threads_named(mgr), 0);
}
END_TEST

/* What a delegated section's write to a pipe with no reader does: the
 * thread that ran it, whether SIGPIPE was blocked there, the result. */
struct gone_write {
	int fd;
	pid_t tid;
	int pipe_blocked;
	ssize_t rc;
	int err;
};

static void *write_gone_cs(void *arg)
{
	struct gone_write *w = arg;
	sigset_t cur;

	w->tid = gettid();
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	w->pipe_blocked = sigismember(&cur, SIGPIPE);
	w->rc = write(w->fd, "x", 1);
	w->err = errno;
	return NULL;
}

static atomic_int sigpipes;
static atomic_int sigpipe_tid;

static void count_sigpipe(int sig)
{
	(void)sig;
	atomic_fetch_add(&sigpipes, 1);
	atomic_store(&sigpipe_tid, gettid());
}

/* A server runs a section's write as the program's thread would have:
 * SIGPIPE raised on the thread that writes (the server's), its handler
 * run there; and when the program's threads block SIGPIPE (a parent
 * blocked it before exec), blocked on the server too, the write failing
 * with EPIPE and nothing raised. */
START_TEST(server_sigpipe_as_callers)
{
	struct sigaction sa = {.sa_handler = count_sigpipe};
	liblock_lock_t l;
	struct gone_write w;
	sigset_t pipe_set;
	int fds[2];

	ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	w.fd = fds[1];
	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT); /* starts the server */
	liblock_exec(&l, write_gone_cs, &w);
	ck_assert_int_ne(w.tid, gettid());
	ck_assert_int_eq(w.pipe_blocked, 0);
	ck_assert(w.rc == -1 && w.err == EPIPE);
	ck_assert_int_eq(atomic_load(&sigpipes), 1);
	ck_assert_int_eq(atomic_load(&sigpipe_tid), w.tid);
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &pipe_set, NULL), 0);
	rt_init_rcl(&l, LIBLOCK_SERVER_DEFAULT); /* a new server */
	liblock_exec(&l, write_gone_cs, &w);
	ck_assert_int_ne(w.tid, gettid());
	ck_assert_int_eq(w.pipe_blocked, 1);
	ck_assert(w.rc == -1 && w.err == EPIPE);
	ck_assert_int_eq(atomic_load(&sigpipes), 1); /* none raised */
	ck_assert_int_eq(liblock_destroy(&l), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
	close(fds[1]);
}
END_TEST

Suite *make_suite(const char *mode)
{
	Suite *s = suite_create(mode);
	TCase *tc = tcase_create("api");

	tcase_set_timeout(tc, TEST_TIMEOUT);
	tcase_add_test(tc, reserve_stop_restart);
	tcase_add_test(tc, fork_child_runs_sections);
	tcase_add_test(tc, trylock_semantics);
	tcase_add_test(tc, idle_server_parks);
	tcase_add_test(tc, mutual_exclusion_1_to_16);
	tcase_add_test(tc, thread_churn_recycles_ids);
	tcase_add_test(tc, section_in_key_destructor);
	tcase_add_test(tc, multiple_servers_nested);
	tcase_add_test(tc, runtime_threads_named);
	tcase_add_test(tc, server_sigpipe_as_callers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_main(make_suite);
}
