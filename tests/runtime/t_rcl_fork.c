/* SPDX-License-Identifier: MIT */
/*
 * fork() with a running RCL server while other threads of the parent are
 * inside RCL calls, their requests pending (the server's thread is held
 * by a spinning section of another lock): the child (which has only the forking
 * thread) runs sections at once, never runs the requests the parent's other
 * threads left in their slots, gets the server CPU back in its mask, has only
 * its own client id, and can start a fresh server; the parent goes on.
 */
#include "rcl_test.h"
#include "rcl_int.h" /* RCL_DEFER_POLL */

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#define BUSY 3
#define FORKS 4

static liblock_lock_t la, lb, lc;
static atomic_int busy_stop, busy_started, in_lc, release_lc;
static atomic_int stale; /* bumped by the busy threads' sections */
static long counter;	 /* under la */

static void *bump_cs(void *arg)
{
	(void)arg;
	atomic_fetch_add_explicit(&stale, 1, memory_order_relaxed);
	return NULL;
}

static void *inc_cs(void *arg)
{
	(void)arg;
	return (void *)++counter;
}

static void *busy_main(void *arg)
{
	(void)arg;
	atomic_fetch_add(&busy_started, 1);
	while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
		liblock_exec(&lb, bump_cs, NULL);
	return NULL;
}

/* Holds the server's only free servicing thread until release_lc: the
 * busy threads' requests on lb (free) stay pending meanwhile. */
static void *spin_cs(void *arg)
{
	(void)arg;
	atomic_store(&in_lc, 1);
	while (!atomic_load_explicit(&release_lc, memory_order_relaxed))
		;
	return NULL;
}

static void *spinner_main(void *arg)
{
	return liblock_exec(&lc, spin_cs, arg);
}

static void *child_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 500; i++)
		liblock_exec(&la, inc_cs, NULL);
	return NULL;
}

/* Sections of @l increment counter from its current value @n times. */
static bool run_sections(int n)
{
	long before = counter;

	for (int i = 0; i < n; i++)
		if ((long)liblock_exec(&la, inc_cs, NULL) != before + i + 1)
			return false;
	return true;
}

#define CHILD_CHECK(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "child: %s failed (line %d)\n", #cond, \
				__LINE__);                                     \
			return 1;                                              \
		}                                                              \
	} while (0)

static int child_main(int cpu, bool parent_reserved)
{
	int seen = atomic_load(&stale);
	cpu_set_t m;
	rcl_stats_t st;
	pthread_t t[2];

	CHILD_CHECK(rcl_stats(cpu, &st) == 0 && !st.running);
	CHILD_CHECK(st.scan_limit <= 1); /* only the forking thread's id */
	CHILD_CHECK(sched_getaffinity(0, sizeof(m), &m) == 0);
	CHILD_CHECK(!parent_reserved || CPU_ISSET(cpu, &m));
	CHILD_CHECK(run_sections(1000));
	if (strcmp(LL_SANITIZER, "tsan") == 0)
		return atomic_load(&stale) == seen ? 0 : 1; /* no threads */
	CHILD_CHECK(rcl_server_start(cpu) == 0);
	CHILD_CHECK(rcl_stats(cpu, &st) == 0 && st.running);
	CHILD_CHECK(run_sections(1000));
	for (int i = 0; i < 2; i++)
		CHILD_CHECK(pthread_create(&t[i], NULL, child_thread, NULL) ==
			    0);
	for (int i = 0; i < 2; i++)
		CHILD_CHECK(pthread_join(t[i], NULL) == 0);
	CHILD_CHECK(run_sections(10));
	CHILD_CHECK(counter == 3011); /* 1 from the parent */
	usleep(30000); /* the fresh server sweeps the old slots meanwhile */
	CHILD_CHECK(atomic_load(&stale) == seen);
	CHILD_CHECK(rcl_shutdown() == 0);
	return 0;
}

/* Wait for @pid for at most @seconds; kill it after that. */
static int wait_child(pid_t pid, int seconds)
{
	double end = rt_now() + seconds;
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, WNOHANG)) == 0 && rt_now() < end)
		usleep(1000);
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ck_abort_msg("the forked child hangs");
	}
	ck_assert_int_eq(got, pid);
	return status;
}

START_TEST(fork_with_busy_threads)
{
	int cpu = rcl_default_server();
	pthread_t busy[BUSY], spinner;
	cpu_set_t m;
	bool reserved;
	pid_t pid;
	int status;

	rt_init_rcl(&la, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&lb, LIBLOCK_SERVER_DEFAULT);
	rt_init_rcl(&lc, LIBLOCK_SERVER_DEFAULT);
	ck_assert_int_eq((long)liblock_exec(&la, inc_cs, NULL), 1); /* id 0 */
	reserved = rt_stats(cpu).exclusive;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(m), &m), 0);
	ck_assert(!reserved || !CPU_ISSET(cpu, &m));
	for (int f = 0; f < FORKS; f++) {
		int target = atomic_load(&stale) + 1000;

		atomic_store(&busy_stop, 0);
		atomic_store(&busy_started, 0);
		for (int i = 0; i < BUSY; i++)
			rt_start(&busy[i], busy_main, NULL);
		rt_wait_flag(&busy_started, 10);
		while (atomic_load(&stale) < target)
			usleep(200);
		/* fork while the busy threads' requests are pending */
		atomic_store(&in_lc, 0);
		atomic_store(&release_lc, 0);
		rt_start(&spinner, spinner_main, NULL);
		rt_wait_flag(&in_lc, 10);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(child_main(cpu, reserved));
		atomic_store(&release_lc, 1);
		rt_join(spinner, 10);
		/* the child may start a server on the same CPU: a busy
		 * SCHED_FIFO server of ours would only let it run through
		 * its yields (docs/RUNTIME.md, several processes) */
		atomic_store(&busy_stop, 1);
		for (int i = 0; i < BUSY; i++)
			rt_join(busy[i], 10);
		status = wait_child(pid, 20);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %d status %#x", f, status);
	}
	ck_assert(run_sections(100));
	ck_assert(rt_stats(cpu).running);
	ck_assert_int_eq(liblock_destroy(&la), 0);
	ck_assert_int_eq(liblock_destroy(&lb), 0);
	ck_assert_int_eq(liblock_destroy(&lc), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* The server keeps the word of a lock used only through liblock_exec from
 * one request to the next (servicing.c): a child forked then must find
 * the lock free, for every kind of section, as a POSIX mutex that nobody
 * held at the fork. */
static int child_after_exec(void)
{
	CHILD_CHECK(liblock_trylock(&la) == 0);
	CHILD_CHECK(liblock_unlock(&la) == 0);
	CHILD_CHECK(run_sections(10));
	CHILD_CHECK(liblock_lock(&la) == 0);
	CHILD_CHECK(liblock_unlock(&la) == 0);
	return 0;
}

START_TEST(fork_after_delegated_sections)
{
	pid_t pid;
	int status;

	rt_init_rcl(&la, LIBLOCK_SERVER_DEFAULT);
	for (int f = 0; f < FORKS; f++) {
		ck_assert(run_sections(200));
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(child_after_exec());
		status = wait_child(pid, 20);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %d status %#x", f, status);
	}
	ck_assert(run_sections(10));
	ck_assert_int_eq(liblock_destroy(&la), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

/* Deferral (server.c): a child whose parent runs a SCHED_FIFO server on
 * the CPU does not start its own there while the parent lives; a
 * grandchild whose owner is gone starts it from its polls. */
static int report(int fd, int rc)
{
	char c = (char)rc;

	return write(fd, &c, 1) == 1 ? rc : 1;
}

static bool server_running(int cpu)
{
	rcl_stats_t st;

	return rcl_stats(cpu, &st) == 0 && st.running;
}

/* Owner @owner (our parent) tells us to go on by exiting; it waits for
 * our byte on @hold_fd first, so that it is alive while we look. */
static int grandchild_main(int cpu, pid_t owner, int ready_fd, int hold_fd)
{
	liblock_lock_t ld;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	double end;

	attr.algorithm = "rcl";
	attr.flags = LIBLOCK_ATTR_FIXED;
	attr.server = cpu;
	CHILD_CHECK(!server_running(cpu));
	CHILD_CHECK(liblock_init(&ld, &attr) == 0);
	CHILD_CHECK(!server_running(cpu)); /* deferred to @owner */
	CHILD_CHECK(run_sections(10));
	CHILD_CHECK(report(ready_fd, 0) == 0);
	CHILD_CHECK(report(hold_fd, 0) == 0); /* @owner may exit now */
	close(hold_fd);
	/* gone: reparented, and reaped by the test (kill fails) */
	end = rt_now() + 10;
	while ((getppid() == owner || kill(owner, 0) == 0) && rt_now() < end)
		usleep(1000);
	CHILD_CHECK(getppid() != owner);
	/* the stopped path polls the owner every RCL_DEFER_POLL calls */
	CHILD_CHECK(run_sections((int)RCL_DEFER_POLL + 1));
	CHILD_CHECK(server_running(cpu));
	CHILD_CHECK(run_sections(100));
	CHILD_CHECK(liblock_destroy(&ld) == 0);
	CHILD_CHECK(rcl_shutdown() == 0);
	return 0;
}

static int deferring_child(int cpu, bool parent_fifo, int fd)
{
	liblock_lock_t ld;
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	pid_t me = getpid(), pid;
	rcl_stats_t st;
	int hold[2];

	/* A lock here may start a server, whose threads ThreadSanitizer
	 * cannot start in the child of a threaded process (and its build
	 * runs degraded: nothing is deferred there). */
	if (strcmp(LL_SANITIZER, "tsan") == 0)
		return 0;
	attr.algorithm = "rcl";
	attr.flags = LIBLOCK_ATTR_FIXED;
	attr.server = cpu;
	CHILD_CHECK(liblock_init(&ld, &attr) == 0);
	/* a degraded parent's server time-slices with ours: no deferral */
	CHILD_CHECK(server_running(cpu) == !parent_fifo);
	if (!parent_fifo)
		return liblock_destroy(&ld) == 0 && run_sections(10) ? 0 : 1;
	/* the polls of the stopped path find the parent alive */
	CHILD_CHECK(run_sections(2 * (int)RCL_DEFER_POLL + 1));
	CHILD_CHECK(!server_running(cpu));
	CHILD_CHECK(liblock_destroy(&ld) == 0);
	/* an explicit start is obeyed; our own server is now the owner */
	CHILD_CHECK(rcl_server_start(cpu) == 0);
	CHILD_CHECK(rcl_stats(cpu, &st) == 0 && st.running && st.fifo);
	CHILD_CHECK(run_sections(10));
	if (pipe(hold) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(hold[0]);
		_exit(report(fd, grandchild_main(cpu, me, fd, hold[1])));
	}
	close(hold[1]);
	/* the grandchild looks at the deferral while we live (it did
	 * not always, under load: the server started at its first lock) */
	CHILD_CHECK(poll(&(struct pollfd){.fd = hold[0], .events = POLLIN}, 1,
			 20000) == 1);
	return 0; /* our exit lets the grandchild go on */
}

START_TEST(fork_defers_to_parent_server)
{
	int cpu = rcl_default_server();
	int fds[2];
	bool fifo;
	pid_t pid;
	int status;
	char got[2];

	rt_init_rcl(&la, LIBLOCK_SERVER_DEFAULT);
	ck_assert(run_sections(100));
	fifo = rt_stats(cpu).fifo;
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(deferring_child(cpu, fifo, fds[1]));
	}
	close(fds[1]);
	status = wait_child(pid, 20);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x", status);
	if (fifo && strcmp(LL_SANITIZER, "tsan") != 0) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};

		/* the grandchild: ready (0), then its result */
		for (int i = 0; i < 2; i++) {
			ck_assert_msg(poll(&p, 1, 20000) == 1,
				      "the grandchild hangs");
			ck_assert_int_eq(read(fds[0], &got[i], 1), 1);
		}
		ck_assert_int_eq(got[0], 0);
		ck_assert_msg(got[1] == 0, "grandchild failed");
	}
	close(fds[0]);
	ck_assert(run_sections(10));
	ck_assert_int_eq(liblock_destroy(&la), 0);
	ck_assert_int_eq(rcl_shutdown(), 0);
}
END_TEST

static Suite *make(const char *mode)
{
	Suite *s = suite_create(mode);
	TCase *tc = tcase_create("fork");

	tcase_set_timeout(tc, TEST_TIMEOUT);
	tcase_add_test(tc, fork_with_busy_threads);
	tcase_add_test(tc, fork_after_delegated_sections);
	tcase_add_test(tc, fork_defers_to_parent_server);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_main(make);
}
