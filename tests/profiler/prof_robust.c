/* SPDX-License-Identifier: MIT */
/*
 * Programs that must behave exactly the same with and without the
 * profiler (t_robust.sh compares stdout and exit status).  One mode per
 * argument:
 *   nolock       never touches a mutex; exits 7
 *   threads N    N threads alive at once, each locks a shared mutex
 *   fork         forks while a thread waits for a held mutex; the child
 *                locks another mutex and exits 3, then re-execs itself
 *                in "nolock" mode from a second child
 *   exitthread   a thread calls exit(4) while others lock and unlock
 *   reinit       init/lock/unlock/destroy 100 times at one address,
 *                static re-initialisation after destroy
 *   errors       recursive and error-checking mutexes: return codes
 *   mainexit     main calls pthread_exit; the last thread exits the process
 *   sanitizer    prints the sanitizer the tree was built with
 *   title        rewrites its argv[0] in place (a process title, as
 *                redis-server sets one), then locks the static `titled`
 *                and a mutex initialised here: the profile must still
 *                name both from this program's symbols and lines
 */
#define _GNU_SOURCE
#include "config.h"
#include "prof_blocked.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void check(int rc, const char *what)
{
	if (rc != 0) {
		fprintf(stderr, "prof_robust: %s: %s\n", what, strerror(rc));
		exit(1);
	}
}

static void *bump(void *arg)
{
	long n = (long)(intptr_t)arg;

	for (long i = 0; i < n; i++) {
		check(pthread_mutex_lock(&shared), "lock");
		counter++;
		check(pthread_mutex_unlock(&shared), "unlock");
	}
	return NULL;
}

static int mode_threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t a;

	if (!t)
		return 1;
	check(pthread_attr_init(&a), "attr");
	check(pthread_attr_setstacksize(&a, 64 * 1024), "stack size");
	for (int i = 0; i < n; i++)
		check(pthread_create(&t[i], &a, bump, (void *)(intptr_t)10),
		      "create");
	for (int i = 0; i < n; i++)
		check(pthread_join(t[i], NULL), "join");
	pthread_attr_destroy(&a);
	free(t);
	printf("threads %d counter %ld\n", n, counter);
	return 0;
}

/* The thread id of fork_waiter(), published just before it locks
 * `shared`: release, paired with the acquire load in mode_fork(). */
static _Atomic pid_t fork_waiter_tid;

static void *fork_waiter(void *arg)
{
	atomic_store_explicit(&fork_waiter_tid, prof_gettid(),
			      memory_order_release);
	return bump(arg);
}

static int wait_child(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int mode_fork(const char *self)
{
	pthread_t t;
	pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
	struct timespec nap = {0, 200 * 1000};
	pid_t pid, tid;

	check(pthread_mutex_lock(&shared), "lock");
	check(pthread_create(&t, NULL, fork_waiter, (void *)(intptr_t)1000),
	      "create");
	/* fork while the thread waits for `shared` */
	while (!(tid = atomic_load_explicit(&fork_waiter_tid,
					    memory_order_acquire)) ||
	       !prof_blocked(tid))
		nanosleep(&nap, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 100; i++) {
			check(pthread_mutex_lock(&other), "child lock");
			check(pthread_mutex_unlock(&other), "child unlock");
		}
		exit(3);
	}
	check(pthread_mutex_unlock(&shared), "unlock");
	check(pthread_join(t, NULL), "join");
	printf("child exited %d\n", wait_child(pid));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "nolock", (char *)NULL);
		_exit(126);
	}
	printf("exec child exited %d, counter %ld\n", wait_child(pid), counter);
	return 5;
}

static void *exiter(void *arg)
{
	struct timespec nap = {0, 10 * 1000 * 1000};

	nanosleep(&nap, NULL);
	check(pthread_mutex_lock(&shared), "lock");
	printf("exiting from a thread\n");
	fflush(stdout);
	exit(4); /* with `shared` held and other threads running */
}

static void *spinner(void *arg)
{
	for (;;)
		bump((void *)(intptr_t)1);
	return NULL;
}

static int mode_exitthread(void)
{
	pthread_t t[3];

	check(pthread_create(&t[0], NULL, spinner, NULL), "create");
	check(pthread_create(&t[1], NULL, spinner, NULL), "create");
	check(pthread_create(&t[2], NULL, exiter, NULL), "create");
	pthread_join(t[2], NULL);
	return 1; /* not reached */
}

static int mode_reinit(void)
{
	static pthread_mutex_t m;
	pthread_mutex_t *h;

	for (int i = 0; i < 100; i++) {
		check(pthread_mutex_init(&m, NULL), "init");
		check(pthread_mutex_lock(&m), "lock");
		check(pthread_mutex_unlock(&m), "unlock");
		check(pthread_mutex_destroy(&m), "destroy");
		h = malloc(sizeof(*h));
		if (!h)
			return 1;
		check(pthread_mutex_init(h, NULL), "heap init");
		check(pthread_mutex_lock(h), "heap lock");
		check(pthread_mutex_unlock(h), "heap unlock");
		check(pthread_mutex_destroy(h), "heap destroy");
		free(h);
	}
	m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	check(pthread_mutex_lock(&m), "relock");
	check(pthread_mutex_unlock(&m), "reunlock");
	printf("reinit done\n");
	return 0;
}

static int mode_errors(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t r, e;
	int rc[15];

	check(pthread_mutexattr_init(&a), "attr");
	check(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE), "type");
	check(pthread_mutex_init(&r, &a), "init r");
	check(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK), "type");
	check(pthread_mutex_init(&e, &a), "init e");
	/* Each call in its own statement: argument order is unspecified. */
	rc[0] = pthread_mutex_lock(&r);
	rc[1] = pthread_mutex_lock(&r);
	rc[2] = pthread_mutex_trylock(&r);
	for (int i = 3; i < 7; i++)
		rc[i] = pthread_mutex_unlock(&r); /* the 4th fails: EPERM */
	rc[7] = pthread_mutex_unlock(&e);	  /* EPERM */
	rc[8] = pthread_mutex_lock(&e);
	rc[9] = pthread_mutex_lock(&e);	    /* EDEADLK */
	rc[10] = pthread_mutex_trylock(&e); /* EBUSY */
	rc[11] = pthread_mutex_unlock(&e);
	rc[12] = pthread_mutex_unlock(&e); /* EPERM */
	rc[13] = pthread_mutex_destroy(&r);
	rc[14] = pthread_mutex_destroy(&e);
	for (int i = 0; i < 15; i++)
		printf("%d%c", rc[i], i == 14 ? '\n' : ' ');
	pthread_mutexattr_destroy(&a);
	return 0;
}

static void *last(void *arg)
{
	bump((void *)(intptr_t)100);
	printf("last thread: counter %ld\n", counter);
	return NULL;
}

static pthread_mutex_t titled = PTHREAD_MUTEX_INITIALIZER;

static int mode_title(char *argv0)
{
	pthread_mutex_t *h = malloc(sizeof(*h));
	size_t n = strlen(argv0);

	if (!h)
		return 1;
	/* What setproctitle() emulations do: the loader's argv[0] (which
	 * dladdr() reports for the main program) now reads as another
	 * path. */
	memset(argv0, 0, n);
	memcpy(argv0, "/nonexistent/title", n < 18 ? n : 18);
	check(pthread_mutex_init(h, NULL), "init");
	for (int i = 0; i < 10; i++) {
		check(pthread_mutex_lock(&titled), "lock");
		check(pthread_mutex_lock(h), "heap lock");
		counter++;
		check(pthread_mutex_unlock(h), "heap unlock");
		check(pthread_mutex_unlock(&titled), "unlock");
	}
	check(pthread_mutex_destroy(h), "destroy");
	free(h);
	printf("title done: %ld\n", counter);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	pthread_t t;

	if (strcmp(m, "sanitizer") == 0) {
		printf("%s\n", LL_SANITIZER);
		return 0;
	}
	if (strcmp(m, "nolock") == 0) {
		printf("no locks here\n");
		return 7;
	}
	if (strcmp(m, "threads") == 0)
		return mode_threads(argc > 2 ? atoi(argv[2]) : 1000);
	if (strcmp(m, "fork") == 0)
		return mode_fork(argv[0]);
	if (strcmp(m, "exitthread") == 0)
		return mode_exitthread();
	if (strcmp(m, "reinit") == 0)
		return mode_reinit();
	if (strcmp(m, "errors") == 0)
		return mode_errors();
	if (strcmp(m, "title") == 0)
		return mode_title(argv[0]);
	if (strcmp(m, "mainexit") == 0) {
		check(pthread_create(&t, NULL, last, NULL), "create");
		pthread_exit(NULL);
	}
	fprintf(stderr, "usage: prof_robust MODE (see the source)\n");
	return 2;
}
