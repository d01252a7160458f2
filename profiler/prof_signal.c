/* SPDX-License-Identifier: MIT */
/*
 * The profile is written however the process ends (docs/PROFILER.md,
 * "How the program ends"):
 * - exit() and a return from main: the library destructor (prof_init.c);
 * - _exit() and _Exit(): interposed here, the dump is written, then the
 *   real call ends the process with the same status;
 * - a signal whose default action ends the process: our handler is
 *   installed for each of them (unless the signal is ignored), the dump is
 *   written, then the default action is restored and the signal raised
 *   again, so the process dies of it exactly as it would have.
 *
 * The program keeps its own handlers: sigaction(), signal(), bsd_signal()
 * and sysv_signal() are interposed, so that for a watched signal our
 * handler stays installed and the program's disposition is kept in
 * `disp`: our handler calls the program's handler (with the program's
 * flags and mask, which are the ones installed), and writes the dump only
 * when the program's disposition is the default one.  A handler that ends
 * the process through _exit or exit, or by restoring SIG_DFL and raising
 * the signal again, is therefore covered too.  SIG_IGN is installed for
 * real (ignoring changes what system calls return).  The program reads
 * back its own disposition, never ours.
 *
 * Everything reachable from the handler and from _exit is
 * async-signal-safe: the dump writer uses write(2) on static buffers
 * (prof_dump.c), the disposition table is guarded by a spin flag taken
 * with every signal blocked, so a handler never spins on a flag held by
 * the thread it interrupted.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Atomic int prof_pid;

/* Signals whose default action ends the process and that a program or
 * its user commonly sends or receives.  SIGPROF and SIGTRAP are left to
 * profilers and debuggers; real-time signals, SIGSTKFLT, SIGPWR and SIGIO
 * are not watched. */
static const int watched[] = {
	SIGHUP,	 SIGINT,  SIGQUIT, SIGILL,    SIGABRT, SIGBUS,
	SIGFPE,	 SIGSEGV, SIGPIPE, SIGALRM,   SIGTERM, SIGUSR1,
	SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
};

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*exit_fn)(int) __attribute__((noreturn));

static _Atomic(sigaction_fn) real_sigaction;
static _Atomic(exit_fn) real_exit;
static _Atomic bool active; /* our handlers are in place */

/* The program's view of each watched signal; `ours`: our handler is the
 * one installed in the kernel (else the program's SIG_IGN is). */
static struct {
	bool watched, ours;
	struct sigaction act;
} disp[NSIG];
static atomic_flag disp_busy = ATOMIC_FLAG_INIT;

/* 0: nobody dumped yet; 1: a thread is writing; 2: written. */
static _Atomic int dump_state;

static sigaction_fn get_sigaction(void)
{
	sigaction_fn f =
		atomic_load_explicit(&real_sigaction, memory_order_relaxed);

	if (!f) {
		/* relaxed: every thread resolves the same pointer */
		f = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
		atomic_store_explicit(&real_sigaction, f, memory_order_relaxed);
	}
	return f;
}

/* Blocks every signal and takes the table; @old receives the mask. */
static void disp_lock(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
	/* acquire: pairs with the release in disp_unlock() */
	while (atomic_flag_test_and_set_explicit(&disp_busy,
						 memory_order_acquire))
		;
}

static void disp_unlock(const sigset_t *old)
{
	atomic_flag_clear_explicit(&disp_busy, memory_order_release);
	sigprocmask(SIG_SETMASK, old, NULL);
}

static bool is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void on_signal(int sig, siginfo_t *si, void *uc);

/* Install in the kernel what stands for the program's disposition @a of
 * @sig: SIG_IGN as it is, anything else as our handler (with the
 * program's mask and flags when it has a handler).  Table held. */
static int install(int sig, const struct sigaction *a)
{
	struct sigaction k;

	if (a->sa_handler == SIG_IGN) {
		disp[sig].ours = false;
		return get_sigaction()(sig, a, NULL);
	}
	memset(&k, 0, sizeof(k));
	k.sa_sigaction = on_signal;
	if (is_handler(a)) {
		k.sa_mask = a->sa_mask;
		/* SA_RESETHAND is emulated in on_signal (the kernel would
		 * reset our handler, not the program's). */
		k.sa_flags = (a->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
	} else {
		sigemptyset(&k.sa_mask);
		k.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	}
	disp[sig].ours = true;
	return get_sigaction()(sig, &k, NULL);
}

/* "WHAT N" into a static buffer (one dumper at a time). */
static const char *ended(const char *what, int n)
{
	static char buf[48];
	char d[16];
	size_t len = strlen(what), i = sizeof(d);
	unsigned v = n < 0 ? (unsigned)-n : (unsigned)n;

	memcpy(buf, what, len);
	buf[len++] = ' ';
	if (n < 0)
		buf[len++] = '-';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf + len, d + i, sizeof(d) - i);
	buf[len + sizeof(d) - i] = 0;
	return buf;
}

/* Write the dump once for the process; a second thread ending the
 * process at the same time waits (up to 5 s) for the first to finish, so
 * the process does not die under the writer.  @what NULL: exit(), the
 * normal writer (it may symbolise with dladdr). */
void prof_final_dump(const char *what, int n)
{
	static PROF_TLS bool writing;
	int zero = 0;

	if (getpid() != atomic_load_explicit(&prof_pid, memory_order_relaxed))
		return; /* a vfork child shares our memory: not ours */
	if (writing)
		return; /* a fault inside the writer itself */
	/* acq_rel: elects the writer; pairs with the waiters' acquire */
	if (atomic_compare_exchange_strong_explicit(&dump_state, &zero, 1,
						    memory_order_acq_rel,
						    memory_order_acquire)) {
		/* relaxed: prof_on only says whether profiling is on (it is
		 * off without RCLPROF_OUT) */
		if (atomic_exchange_explicit(&prof_on, false,
					     memory_order_relaxed)) {
			writing = true;
			prof_busy++;
			if (what)
				prof_dump_safe(ended(what, n));
			else
				prof_dump();
			prof_busy--;
			writing = false;
		}
		/* release: the file is complete before a waiter goes on to
		 * end the process; pairs with the acquire loads below */
		atomic_store_explicit(&dump_state, 2, memory_order_release);
		return;
	}
	for (int i = 0;
	     i < 5000 &&
	     atomic_load_explicit(&dump_state, memory_order_acquire) != 2;
	     i++) {
		struct timespec ms = {0, 1000000};

		nanosleep(&ms, NULL);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a, dfl;
	sigset_t old, one;
	int saved = errno;

	disp_lock(&old);
	a = disp[sig].act;
	if (is_handler(&a) && (a.sa_flags & SA_RESETHAND)) {
		disp[sig].act.sa_handler = SIG_DFL;
		disp[sig].act.sa_flags &= ~SA_SIGINFO;
	}
	disp_unlock(&old);
	if (a.sa_handler == SIG_IGN) {
		errno = saved;
		return;
	}
	if (is_handler(&a)) {
		if (a.sa_flags & SA_SIGINFO)
			a.sa_sigaction(sig, si, uc);
		else
			a.sa_handler(sig);
		errno = saved;
		return;
	}
	/* The program's disposition is the default: it dies of @sig. */
	prof_final_dump("signal", sig);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	get_sigaction()(sig, &dfl, NULL);
	raise(sig);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	/* Not reached for a signal sent to us; for a fault, returning runs
	 * the faulting instruction again, which now kills the process. */
	errno = saved;
}

void prof_signal_init(void)
{
	sigset_t old;

	atomic_store_explicit(&prof_pid, getpid(), memory_order_relaxed);
	atomic_store_explicit(&real_exit, (exit_fn)dlsym(RTLD_NEXT, "_exit"),
			      memory_order_relaxed);
	if (!get_sigaction()) {
		prof_log("cannot resolve sigaction: a program ended by a "
			 "signal leaves no profile");
		return;
	}
	disp_lock(&old);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		int sig = watched[i];

		if (get_sigaction()(sig, NULL, &disp[sig].act) != 0)
			continue;
		disp[sig].watched = true;
		if (install(sig, &disp[sig].act) != 0)
			prof_log("cannot take signal %d: a program killed by "
				 "it leaves no profile",
				 sig);
	}
	/* relaxed: set and read under the table's flag */
	atomic_store_explicit(&active, true, memory_order_relaxed);
	disp_unlock(&old);
}

/* In the child of fork(): the dump is the child's own. */
void prof_signal_fork_child(void)
{
	atomic_store_explicit(&prof_pid, getpid(), memory_order_relaxed);
	atomic_store_explicit(&dump_state, 0, memory_order_relaxed);
}

/* ---- the interposed calls --------------------------------------------- */

PROF_API int sigaction(int sig, const struct sigaction *act,
		       struct sigaction *oldact)
{
	struct sigaction prev;
	sigset_t old;
	int rc = 0;

	if (!get_sigaction()) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= NSIG)
		return get_sigaction()(sig, act, oldact);
	disp_lock(&old);
	if (!atomic_load_explicit(&active, memory_order_relaxed) ||
	    !disp[sig].watched) {
		disp_unlock(&old);
		return get_sigaction()(sig, act, oldact);
	}
	prev = disp[sig].act;
	if (act) {
		struct sigaction a = *act;

		/* the kernel would drop these from the mask too */
		sigdelset(&a.sa_mask, SIGKILL);
		sigdelset(&a.sa_mask, SIGSTOP);
		rc = install(sig, &a);
		if (rc == 0)
			disp[sig].act = a;
		else
			(void)install(sig, &prev);
	}
	disp_unlock(&old);
	if (rc == 0 && oldact)
		*oldact = prev;
	return rc;
}

/* glibc's signal() is BSD's: the handler stays, interrupted calls are
 * restarted, the signal is blocked while its handler runs. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
	struct sigaction a, old;

	if (h == SIG_ERR || sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	sigemptyset(&a.sa_mask);
	if (!(flags & SA_NODEFER))
		sigaddset(&a.sa_mask, sig);
	a.sa_flags = flags;
	if (sigaction(sig, &a, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

PROF_API sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

PROF_API sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

/* System V's: reset to SIG_DFL on delivery, not blocked meanwhile. */
PROF_API sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* What `signal` is bound to in programs compiled in strict ISO C mode. */
PROF_API sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

static __attribute__((noreturn)) void end(const char *what, int status)
{
	exit_fn f = atomic_load_explicit(&real_exit, memory_order_relaxed);

	prof_final_dump(what, status);
	if (f)
		f(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

PROF_API void _exit(int status)
{
	end("_exit", status);
}

PROF_API void _Exit(int status)
{
	end("_Exit", status);
}
