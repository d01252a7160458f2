/* SPDX-License-Identifier: MIT */
/*
 * exec and process creation from inside a shipped section.
 *
 * With --lock rcl, the section of a contended mutex runs on a servicing
 * thread of the RCL server (runtime/ship.c).  A new process, or a new
 * program, made there would inherit that kernel thread's state: SCHED_FIFO,
 * the server's CPU alone, and a signal mask that blocks nearly every
 * signal.  system("gzip log") under a busy mutex started a real-time gzip
 * pinned to the server's CPU that ignored ^C.  So these calls first bring
 * the section home (rcl_ship_recall(): the rest of the section, the call
 * included, runs in place on the program's own thread, which keeps the
 * mutex).  fork() is handled by the runtime's fork handler.  vfork() is not
 * wrapped (its child cannot return through a wrapper's frame): a section
 * that vforks still does so from the servicing thread.
 *
 * glibc's execl, execle and execlp, system, popen and posix_spawn do not
 * call the wrapped entry points internally, so each is wrapped.  The
 * variadic exec functions are rebuilt on their array forms, as POSIX
 * specifies them.  The real functions are looked up once, at load
 * (pti_exec_resolve()): a vfork child that execs must not be the first to
 * ask the dynamic linker.
 */
#include "pti_int.h"

#include <dlfcn.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcl.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *,
			const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[],
			char *const[]);
typedef int (*system_fn)(const char *);
typedef FILE *(*popen_fn)(const char *, const char *);

static struct {
	execve_fn execve, execvpe;
	execv_fn execv, execvp;
	fexecve_fn fexecve;
	spawn_fn spawn, spawnp;
	system_fn system;
	popen_fn popen;
} real;

/* The default version of each: glibc's current one, or a sanitizer's
 * interceptor loaded between us and glibc. */
static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p)
		ll_fatal("rcl-run: cannot find the real %s", name);
	return p;
}

static _Atomic bool resolved;

void pti_exec_resolve(void)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return;
	*(void **)&real.execve = next("execve");
	*(void **)&real.execvpe = next("execvpe");
	*(void **)&real.execv = next("execv");
	*(void **)&real.execvp = next("execvp");
	*(void **)&real.fexecve = next("fexecve");
	*(void **)&real.spawn = next("posix_spawn");
	*(void **)&real.spawnp = next("posix_spawnp");
	*(void **)&real.system = next("system");
	*(void **)&real.popen = next("popen");
	/* release: the pointers before the flag (pairs with the acquire
	 * above); two threads racing here store the same values */
	atomic_store_explicit(&resolved, true, memory_order_release);
}

/* Every wrapper's first step: the real functions known (another library's
 * constructor may spawn before ours ran), and the section home. */
static void home(void)
{
	pti_exec_resolve();
	rcl_ship_recall();
}

LL_API_EXPORT int pti_execve(const char *path, char *const argv[],
			     char *const envp[])
{
	home();
	return real.execve(path, argv, envp);
}
PTI_EXPORT(pti_execve, execve, "GLIBC_2.2.5");

LL_API_EXPORT int pti_execvpe(const char *file, char *const argv[],
			      char *const envp[])
{
	home();
	return real.execvpe(file, argv, envp);
}
PTI_EXPORT(pti_execvpe, execvpe, "GLIBC_2.11");

LL_API_EXPORT int pti_execv(const char *path, char *const argv[])
{
	home();
	return real.execv(path, argv);
}
PTI_EXPORT(pti_execv, execv, "GLIBC_2.2.5");

LL_API_EXPORT int pti_execvp(const char *file, char *const argv[])
{
	home();
	return real.execvp(file, argv);
}
PTI_EXPORT(pti_execvp, execvp, "GLIBC_2.2.5");

LL_API_EXPORT int pti_fexecve(int fd, char *const argv[], char *const envp[])
{
	home();
	return real.fexecve(fd, argv, envp);
}
PTI_EXPORT(pti_fexecve, fexecve, "GLIBC_2.2.5");

/* The arguments of execl/execle/execlp after @arg0, up to the NULL: how
 * many (the NULL excluded). */
static size_t count_args(va_list ap)
{
	size_t n = 0;

	while (va_arg(ap, const char *) != NULL)
		n++;
	return n;
}

/* Fill @argv (room for @n + 2) with @arg0, the @n arguments in @ap, and
 * NULL; returns what follows the NULL (execle's envp) when @env. */
static char *const *fill_args(const char **argv, const char *arg0, size_t n,
			      va_list ap, bool env)
{
	argv[0] = arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, const char *);
	argv[n + 1] = va_arg(ap, const char *); /* the NULL */
	return env ? va_arg(ap, char *const *) : NULL;
}

/* The variadic forms: the array on the stack, as glibc's own do.  A
 * variable-length array: its size is the caller's argument count, which
 * fits the caller's own stack frame many times over. */
#define VARIADIC_ARGV(arg0, last_fixed, env, argv, envp)                       \
	va_list ap_;                                                           \
	size_t n_;                                                             \
	va_start(ap_, last_fixed);                                             \
	n_ = count_args(ap_);                                                  \
	va_end(ap_);                                                           \
	const char *argv[n_ + 2];                                              \
	va_start(ap_, last_fixed);                                             \
	char *const *envp = fill_args(argv, arg0, n_, ap_, env);               \
	va_end(ap_)

LL_API_EXPORT int pti_execl(const char *path, const char *arg, ...)
{
	VARIADIC_ARGV(arg, arg, false, argv, envp);
	(void)envp;
	home();
	return real.execv(path, (char *const *)argv);
}
PTI_EXPORT(pti_execl, execl, "GLIBC_2.2.5");

LL_API_EXPORT int pti_execlp(const char *file, const char *arg, ...)
{
	VARIADIC_ARGV(arg, arg, false, argv, envp);
	(void)envp;
	home();
	return real.execvp(file, (char *const *)argv);
}
PTI_EXPORT(pti_execlp, execlp, "GLIBC_2.2.5");

LL_API_EXPORT int pti_execle(const char *path, const char *arg, ...)
{
	VARIADIC_ARGV(arg, arg, true, argv, envp);
	home();
	return real.execve(path, (char *const *)argv, envp);
}
PTI_EXPORT(pti_execle, execle, "GLIBC_2.2.5");

LL_API_EXPORT int pti_posix_spawn(pid_t *pid, const char *path,
				  const posix_spawn_file_actions_t *fa,
				  const posix_spawnattr_t *attr,
				  char *const argv[], char *const envp[])
{
	home();
	return real.spawn(pid, path, fa, attr, argv, envp);
}
PTI_EXPORT(pti_posix_spawn, posix_spawn, "GLIBC_2.15");

LL_API_EXPORT int pti_posix_spawnp(pid_t *pid, const char *file,
				   const posix_spawn_file_actions_t *fa,
				   const posix_spawnattr_t *attr,
				   char *const argv[], char *const envp[])
{
	home();
	return real.spawnp(pid, file, fa, attr, argv, envp);
}
PTI_EXPORT(pti_posix_spawnp, posix_spawnp, "GLIBC_2.15");

LL_API_EXPORT int pti_system(const char *command)
{
	home();
	return real.system(command);
}
PTI_EXPORT(pti_system, system, "GLIBC_2.2.5");

LL_API_EXPORT FILE *pti_popen(const char *command, const char *mode)
{
	home();
	return real.popen(command, mode);
}
PTI_EXPORT(pti_popen, popen, "GLIBC_2.2.5");
