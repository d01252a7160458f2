/* SPDX-License-Identifier: MIT */
/*
 * Processes under rcl-run.  Usage: pt_proc fork | pshared
 *   fork     fork while other threads hammer mutexes and while the forking
 *            thread holds one; the child unlocks it, then uses new mutexes,
 *            condvars and threads.  The child must be the forking thread's
 *            copy as the kernel sees it too: its name, scheduling policy
 *            and CPUs, and its restartable-sequence area (glibc's
 *            sched_getcpu() reads it) where glibc thinks it is
 *   spawn    while holding a mutex that other threads hammer: posix_spawn,
 *            system and popen a child, then exec: each new program must
 *            start with the calling thread's scheduling policy, signal
 *            mask and (at least) CPUs, whatever thread ran the section
 *   pshared  a PTHREAD_PROCESS_SHARED mutex and condvar in shared memory,
 *            used by this process and by a freshly exec'ed child (which
 *            never saw them initialised): each must see the other's lock
 *            held, i.e. both use glibc's lock on the shared memory
 * Exit 0 on success, 1 with a one-line reason, 77 when the mode cannot run
 * in this build: fork under a sanitizer (ThreadSanitizer cannot start
 * threads in the child of a multithreaded process; AddressSanitizer's
 * allocator can deadlock there, its lock held by a parent thread at fork).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pt.h"

int scale = 1;

/* ---- fork --------------------------------------------------------------- */

static pthread_mutex_t fm = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t dm;
static atomic_int stop;
static long hammered;

static void *hammer(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		CHECK(pthread_mutex_lock(&fm));
		hammered++;
		CHECK(pthread_mutex_unlock(&fm));
		CHECK(pthread_mutex_lock(&dm));
		CHECK(pthread_mutex_unlock(&dm));
	}
	return arg;
}

static pthread_mutex_t cm;
static pthread_cond_t cc;
static long child_count;
static int child_done;

static void *child_worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		CHECK(pthread_mutex_lock(&cm));
		child_count++;
		CHECK(pthread_mutex_unlock(&cm));
	}
	CHECK(pthread_mutex_lock(&cm));
	child_done++;
	CHECK(pthread_cond_signal(&cc));
	CHECK(pthread_mutex_unlock(&cm));
	return arg;
}

/* The forking thread's kernel-side identity, taken before each fork. */
static char parent_name[16];
static int parent_policy;
static cpu_set_t parent_cpus;

/* The child's only thread is the forking thread's copy: the same name and
 * policy, at least its CPUs (a runtime may give back CPUs it reserved),
 * and a restartable-sequence area that the kernel updates: on every CPU
 * the child may use, glibc's sched_getcpu() (which reads that area) must
 * say where the thread runs. */
static void child_is_forker(void)
{
	char name[16] = "";
	cpu_set_t cpus, both;

	if (prctl(PR_GET_NAME, name) != 0 || strcmp(name, parent_name) != 0)
		FAIL("fork child: named '%s', the forking thread '%s'", name,
		     parent_name);
	if (sched_getscheduler(0) != parent_policy)
		FAIL("fork child: scheduling policy %d, the forking thread's "
		     "%d",
		     sched_getscheduler(0), parent_policy);
	CHECK(sched_getaffinity(0, sizeof(cpus), &cpus));
	CPU_AND(&both, &cpus, &parent_cpus);
	if (!CPU_EQUAL(&both, &parent_cpus))
		FAIL("fork child: %d CPUs, not all of the forking thread's %d",
		     CPU_COUNT(&cpus), CPU_COUNT(&parent_cpus));
	for (int c = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t one;
		unsigned int real;
		int seen;

		if (!CPU_ISSET(c, &cpus))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			continue; /* not ours to use after all */
		seen = sched_getcpu();
		if (syscall(SYS_getcpu, &real, NULL, NULL) != 0)
			FAIL("getcpu: %s", strerror(errno));
		if (seen != (int)real)
			FAIL("fork child: sched_getcpu() says CPU %d on CPU %u "
			     "(its rseq area is not the kernel's)",
			     seen, real);
	}
	CHECK(sched_setaffinity(0, sizeof(cpus), &cpus));
}

static void child_after_fork(void)
{
	pthread_t t[2];

	child_is_forker();
	CHECK(pthread_mutex_unlock(&dm)); /* held by us at fork */
	CHECK(pthread_mutex_lock(&dm));
	CHECK(pthread_mutex_unlock(&dm));
	CHECK(pthread_mutex_init(&cm, NULL));
	CHECK(pthread_cond_init(&cc, NULL));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, child_worker, NULL));
	CHECK(pthread_mutex_lock(&cm));
	while (child_done < 2)
		CHECK(pthread_cond_wait(&cc, &cm));
	CHECK(pthread_mutex_unlock(&cm));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(t[i], NULL));
	if (child_count != 2000)
		FAIL("fork child: count %ld", child_count);
	_exit(0);
}

static void do_fork(void)
{
	pthread_t t[3];
	int status;

	CHECK(pthread_mutex_init(&dm, NULL));
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, hammer, NULL));
	CHECK(prctl(PR_GET_NAME, parent_name));
	parent_policy = sched_getscheduler(0);
	for (int round = 0; round < 5; round++) {
		pid_t pid;

		/* outside the section: a runtime that reserves CPUs may
		 * change ours meanwhile */
		CHECK(sched_getaffinity(0, sizeof(parent_cpus), &parent_cpus));
		CHECK(pthread_mutex_lock(&dm));
		if ((pid = fork()) < 0)
			FAIL("fork: %s", strerror(errno));
		if (pid == 0)
			child_after_fork();
		CHECK(pthread_mutex_unlock(&dm));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			FAIL("fork child %d failed (status %#x)", round,
			     status);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL));
	if (hammered == 0)
		FAIL("fork: hammer threads never ran");
}

/* ---- spawn -------------------------------------------------------------- */

extern char **environ;

/* The calling thread's policy, signal mask (the first 64 signals) and
 * CPUs (the first 64), as "proc-child" arguments. */
static void identity(char pol[16], char mask[24], char cpus[24])
{
	sigset_t set;
	cpu_set_t cs;
	unsigned long long m = 0, c = 0;

	CHECK(pthread_sigmask(SIG_SETMASK, NULL, &set));
	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(&set, sig) == 1)
			m |= 1ull << (sig - 1);
	CHECK(sched_getaffinity(0, sizeof(cs), &cs));
	for (int i = 0; i < 64; i++)
		if (CPU_ISSET(i, &cs))
			c |= 1ull << i;
	snprintf(pol, 16, "%d", sched_getscheduler(0));
	snprintf(mask, 24, "%llx", m);
	snprintf(cpus, 24, "%llx", c);
}

/* pt_proc proc-child POLICY MASK CPUS HOW: a program started by HOW
 * checks that it has what its starter had (identity()); its CPUs may be
 * more (a runtime gives back the CPUs it reserved). */
static int proc_child(char **argv)
{
	char pol[16], mask[24], cpus[24];
	unsigned long long want, got;

	identity(pol, mask, cpus);
	if (strcmp(pol, argv[2]) != 0)
		FAIL("%s: scheduling policy %s, its starter's %s", argv[5], pol,
		     argv[2]);
	if (strcmp(mask, argv[3]) != 0)
		FAIL("%s: signal mask %s, its starter's %s", argv[5], mask,
		     argv[3]);
	want = strtoull(argv[4], NULL, 16);
	got = strtoull(cpus, NULL, 16);
	if ((got & want) != want)
		FAIL("%s: CPUs %llx, not all of its starter's %llx", argv[5],
		     got, want);
	return 0;
}

static void check_status(const char *how, int status)
{
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("%s: the child failed (status %#x)", how, status);
}

static void do_spawn(const char *self)
{
	char pol[16], mask[24], cpus[24], cmd[4096];
	char *args[] = {(char *)self, "proc-child", pol, mask,
			cpus,	      NULL,	    NULL};
	pthread_t t[3];
	int status;
	pid_t pid;
	FILE *f;

	CHECK(pthread_mutex_init(&dm, NULL));
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, hammer, NULL));
	/* outside a section: a runtime that reserves CPUs may change ours
	 * while it starts */
	usleep(10000);
	identity(pol, mask, cpus);
	if (snprintf(cmd, sizeof(cmd) - 16, "'%s' proc-child %s %s %s", self,
		     pol, mask, cpus) >= (int)sizeof(cmd) - 16)
		FAIL("spawn: path too long: %s", self);

	CHECK(pthread_mutex_lock(&dm));
	args[5] = "posix_spawn";
	CHECK(posix_spawn(&pid, self, NULL, NULL, args, environ));
	if (waitpid(pid, &status, 0) != pid)
		FAIL("waitpid: %s", strerror(errno));
	check_status("posix_spawn", status);
	CHECK(pthread_mutex_unlock(&dm));

	CHECK(pthread_mutex_lock(&dm));
	check_status("system", system(strcat(cmd, " system")));
	CHECK(pthread_mutex_unlock(&dm));

	CHECK(pthread_mutex_lock(&dm));
	*strrchr(cmd, ' ') = '\0';
	if ((f = popen(strcat(cmd, " popen"), "r")) == NULL)
		FAIL("popen: %s", strerror(errno));
	check_status("popen", pclose(f));
	CHECK(pthread_mutex_unlock(&dm));

	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL));
	if (hammered == 0)
		FAIL("spawn: hammer threads never ran");
	/* last: this program becomes the child, inside a section */
	atomic_store(&stop, 0);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, hammer, NULL));
	CHECK(pthread_mutex_lock(&dm));
	args[5] = "execv";
	execv(self, args);
	FAIL("execv %s: %s", self, strerror(errno));
}

/* ---- pshared ------------------------------------------------------------ */

struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	long counter;
	int go;
	atomic_int phase;
};

#define SHARED_ROUNDS 5000

static void wait_phase(struct shared *s, int phase)
{
	for (int i = 0; atomic_load(&s->phase) != phase; i++) {
		if (i > 20000) /* 20 s */
			FAIL("pshared: phase %d never came", phase);
		usleep(1000);
	}
}

static void count(struct shared *s)
{
	for (int i = 0; i < SHARED_ROUNDS; i++) {
		CHECK(pthread_mutex_lock(&s->m));
		s->counter++;
		CHECK(pthread_mutex_unlock(&s->m));
	}
}

/* The exec'ed child: maps the memfd it was given, never inits. */
static int pshared_child(int fd)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0);

	if (s == MAP_FAILED)
		FAIL("child mmap: %s", strerror(errno));
	EXPECT(pthread_mutex_trylock(&s->m), EBUSY); /* parent holds it */
	atomic_store(&s->phase, 1);
	CHECK(pthread_mutex_lock(&s->m));
	atomic_store(&s->phase, 2);
	wait_phase(s, 3); /* parent checks we hold it */
	while (!s->go)
		CHECK(pthread_cond_wait(&s->c, &s->m));
	CHECK(pthread_mutex_unlock(&s->m));
	count(s);
	return 0;
}

static void init_shared(struct shared *s)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	CHECK(pthread_mutexattr_init(&ma));
	CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
	CHECK(pthread_mutex_init(&s->m, &ma));
	CHECK(pthread_condattr_init(&ca));
	CHECK(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED));
	CHECK(pthread_cond_init(&s->c, &ca));
}

static void do_pshared(void)
{
	int fd = memfd_create("pt_proc", 0), status;
	struct shared *s;
	char fdarg[16];
	pid_t pid;

	if (fd < 0 || ftruncate(fd, sizeof(*s)) != 0)
		FAIL("memfd: %s", strerror(errno));
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		FAIL("mmap: %s", strerror(errno));
	init_shared(s);
	CHECK(pthread_mutex_lock(&s->m));
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	if ((pid = fork()) == 0) {
		execl("/proc/self/exe", "pt_proc", "pshared-child", fdarg,
		      (char *)NULL);
		_exit(126);
	}
	wait_phase(s, 1);
	CHECK(pthread_mutex_unlock(&s->m));
	wait_phase(s, 2);
	EXPECT(pthread_mutex_trylock(&s->m), EBUSY); /* child holds it */
	atomic_store(&s->phase, 3);
	CHECK(pthread_mutex_lock(&s->m));
	s->go = 1;
	CHECK(pthread_cond_broadcast(&s->c));
	CHECK(pthread_mutex_unlock(&s->m));
	count(s);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		FAIL("pshared child failed (status %#x)", status);
	if (s->counter != 2 * SHARED_ROUNDS)
		FAIL("pshared: counter %ld, want %d", s->counter,
		     2 * SHARED_ROUNDS);
	CHECK(pthread_cond_destroy(&s->c));
	CHECK(pthread_mutex_destroy(&s->m));
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "pshared-child") == 0)
		return pshared_child(atoi(argv[2]));
	if (argc == 6 && strcmp(argv[1], "proc-child") == 0)
		return proc_child(argv);
	if (argc != 2)
		FAIL("usage: pt_proc fork|spawn|pshared");
	if (strcmp(argv[1], "fork") == 0) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
		fprintf(stderr,
			"pt: fork skipped: sanitizers are not fork-safe "
			"in a multithreaded process\n");
		return 77;
#endif
		do_fork();
	} else if (strcmp(argv[1], "spawn") == 0) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			FAIL("readlink /proc/self/exe: %s", strerror(errno));
		self[n] = '\0';
		do_spawn(self);
	} else if (strcmp(argv[1], "pshared") == 0)
		do_pshared();
	else
		FAIL("unknown mode '%s'", argv[1]);
	return 0;
}
