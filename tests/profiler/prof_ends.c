/* SPDX-License-Identifier: MIT */
/*
 * Ways a profiled program ends, for t_ends.sh.  Every mode first takes the
 * global mutex `g_end` 1,000 times (and a helper thread takes it 500 times
 * more), then ends as its name says; the output and the exit status must
 * be the same with and without rcl-prof, and the profile must be written.
 *
 *   exit      exit(4)                 _exit     _exit(3)
 *   Exit      _Exit(5)                segv      a null write: SIGSEGV
 *   abort     abort(): SIGABRT        term      kill(getpid(), SIGTERM)
 *   int       SIGINT from another thread, main blocked in pause()
 *   handler   a SIGTERM handler installed by the program sets a flag; the
 *             program prints and exits 6 (the handler must run)
 *   hexit     a SIGINT handler (signal()) that calls _exit(7)
 *   crash     a SIGSEGV handler (SA_RESETHAND) that prints, then returns:
 *             the fault repeats and kills the process
 *   reraise   a SIGABRT handler that restores SIG_DFL with signal() and
 *             raises SIGABRT again
 *   ignore    SIGPIPE ignored: a write to a closed pipe returns EPIPE
 *   busy      SIGTERM while 2 threads are inside lock loops (sent once
 *             both have made an acquisition: no sleep to wait for them)
 * Each mode also checks that the program reads back its own disposition.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t g_end = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t got;
static volatile int counter;
/* Spinners that have made their first acquisition: release, paired with
 * the acquire load in main before the SIGTERM. */
static atomic_int spinning;

static void take(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&g_end);
		counter++;
		pthread_mutex_unlock(&g_end);
	}
}

static void *helper(void *arg)
{
	take(500);
	return arg;
}

static void *spinner(void *arg)
{
	take(1);
	atomic_fetch_add_explicit(&spinning, 1, memory_order_release);
	for (;;)
		take(1000);
	return arg;
}

static void *interrupter(void *arg)
{
	usleep(20000);
	kill(getpid(), SIGINT);
	return arg;
}

static void say(const char *s)
{
	if (write(STDOUT_FILENO, s, strlen(s)) < 0)
		_exit(90);
}

static void on_flag(int sig)
{
	got = sig;
	say("handler ran\n");
}

static void on_exit_7(int sig)
{
	say("exiting from the handler\n");
	_exit(7);
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	say("crash handler ran\n");
}

static void on_abort(int sig)
{
	say("abort handler ran\n");
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

/* The disposition the program set is the one it reads back. */
static void expect(int sig, void (*h)(int))
{
	struct sigaction now;

	if (sigaction(sig, NULL, &now) != 0 || now.sa_handler != h) {
		printf("signal %d: reads back %p, set %p\n", sig,
		       (void *)now.sa_handler, (void *)h);
		exit(91);
	}
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	struct sigaction sa;
	pthread_t t;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* (a sanitizer's runtime owns SIGSEGV: not checked here) */
	expect(SIGTERM, SIG_DFL);
	expect(SIGUSR1, SIG_DFL);
	if (pthread_create(&t, NULL, helper, NULL) || pthread_join(t, NULL))
		return 92;
	take(1000);
	printf("mode %s\n", m);
	if (!strcmp(m, "exit"))
		exit(4);
	if (!strcmp(m, "_exit"))
		_exit(3);
	if (!strcmp(m, "Exit"))
		_Exit(5);
	if (!strcmp(m, "segv")) {
		*(volatile int *)(uintptr_t)(argc - 2) = 1;
		return 93;
	}
	if (!strcmp(m, "abort"))
		abort();
	if (!strcmp(m, "term")) {
		kill(getpid(), SIGTERM);
		for (;;)
			pause();
	}
	if (!strcmp(m, "int")) {
		/* a shell starts background jobs with SIGINT ignored */
		if (sigaction(SIGINT, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			signal(SIGINT, SIG_DFL);
		if (pthread_create(&t, NULL, interrupter, NULL))
			return 94;
		for (;;)
			pause();
	}
	if (!strcmp(m, "handler")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_flag;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGTERM, &sa, NULL))
			return 95;
		expect(SIGTERM, on_flag);
		kill(getpid(), SIGTERM);
		while (!got)
			pause();
		printf("flag %d\n", (int)got);
		exit(6);
	}
	if (!strcmp(m, "hexit")) {
		/* SIG_IGN when started in the background by a shell without
		 * job control (POSIX): as with "int", it is ours to set */
		void (*prev)(int) = signal(SIGINT, on_exit_7);

		if (prev != SIG_DFL && prev != SIG_IGN)
			return 96;
		expect(SIGINT, on_exit_7);
		raise(SIGINT);
		return 97;
	}
	if (!strcmp(m, "crash")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_crash;
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSEGV, &sa, NULL))
			return 98;
		*(volatile int *)(uintptr_t)(argc - 2) = 1;
		return 99;
	}
	if (!strcmp(m, "reraise")) {
		signal(SIGABRT, on_abort);
		abort();
	}
	if (!strcmp(m, "ignore")) {
		int fd[2];

		if (signal(SIGPIPE, SIG_IGN) != SIG_DFL || pipe(fd))
			return 100;
		expect(SIGPIPE, SIG_IGN);
		close(fd[0]);
		if (write(fd[1], "x", 1) < 0 && errno == EPIPE)
			printf("EPIPE\n");
		return 0;
	}
	if (!strcmp(m, "busy")) {
		if (pthread_create(&t, NULL, spinner, NULL) ||
		    pthread_create(&t, NULL, spinner, NULL))
			return 101;
		while (atomic_load_explicit(&spinning, memory_order_acquire) <
		       2)
			sched_yield();
		kill(getpid(), SIGTERM);
		for (;;)
			pause();
	}
	printf("unknown mode\n");
	return 2;
}
