/* SPDX-License-Identifier: MIT */
/*
 * Start-up and shut-down of the profiler library: resolving the real
 * pthread functions, the constructor and destructor, fork handling,
 * logging and the optional PAPI cache-miss counters.
 *
 * Early start-up: a wrapper may run before our constructor (another
 * library's constructor) or while dlsym itself is running (dlsym may call
 * calloc, which a custom allocator may protect with a mutex).  Until
 * prof_real is filled, mutex calls go straight to glibc's exported
 * __pthread_mutex_* aliases, which need no lookup; nothing is profiled
 * then.  Condition variables and threads are not used by the loader, so
 * they resolve on demand.
 */
#define _GNU_SOURCE
#include "prof_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_PAPI
#include <linux/perf_event.h>
#include <papi.h>
#include <sys/syscall.h>
#endif

struct prof_real prof_real;
uint32_t prof_sample = 1;
_Atomic bool prof_on;
PROF_TLS int prof_busy;
const char *prof_papi_status = "n/a: built without PAPI";

/* glibc's own names for the mutex calls (GLIBC_2.2.5), used while the
 * interposed ones are being resolved. */
extern int __pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *);
extern int __pthread_mutex_destroy(pthread_mutex_t *);
extern int __pthread_mutex_lock(pthread_mutex_t *);
extern int __pthread_mutex_trylock(pthread_mutex_t *);
extern int __pthread_mutex_unlock(pthread_mutex_t *);

void prof_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "rcl-prof: ");

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return; /* stderr closed: nowhere to report */
}

void prof_log_safe2(const char *msg, const char *arg)
{
	static const char pfx[] = "rcl-prof: ";
	char buf[512];
	size_t n = sizeof(pfx) - 1;

	memcpy(buf, pfx, n);
	for (const char *p = msg; *p && n < sizeof(buf) - 1; p++)
		buf[n++] = *p;
	for (const char *p = arg; p && *p && n < sizeof(buf) - 1; p++)
		buf[n++] = *p;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return; /* stderr closed: nowhere to report */
}

void prof_log_safe(const char *msg)
{
	prof_log_safe2(msg, NULL);
}

/* The next definition of @name after us.  dlsym returns the default
 * version, which for pthread_cond_* is GLIBC_2.3.2 (the current condvar
 * ABI, never the 2.2.5 compatibility one).  dlvsym(..., "GLIBC_2.3.2")
 * would skip an unversioned interceptor placed between us and libc (a
 * sanitizer runtime's), which then misses the mutex release inside the
 * wait: it is only the fallback, for a libc without that default. */
static void *next_sym(const char *name, const char *version)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p && version)
		p = dlvsym(RTLD_NEXT, name, version);
	if (!p) {
		prof_log("cannot resolve %s: %s", name, dlerror());
		abort();
	}
	return p;
}

/* Resolution runs once; concurrent first callers all resolve (dlsym is
 * thread-safe and returns the same pointers), and the one that finishes
 * first publishes.  Until then the bootstrap pointers below are used. */
void prof_resolve(void)
{
	static PROF_TLS int resolving;
	struct prof_real r;

	if (resolving)
		return;
	resolving = 1;
	r.mutex_init = next_sym("pthread_mutex_init", NULL);
	r.mutex_destroy = next_sym("pthread_mutex_destroy", NULL);
	r.mutex_lock = next_sym("pthread_mutex_lock", NULL);
	r.mutex_trylock = next_sym("pthread_mutex_trylock", NULL);
	r.mutex_timedlock = next_sym("pthread_mutex_timedlock", NULL);
	r.mutex_unlock = next_sym("pthread_mutex_unlock", NULL);
	r.mutex_clocklock = next_sym("pthread_mutex_clocklock", NULL);
	/* The condvar ABI changed in 2.3.2: see next_sym(). */
	r.cond_wait = next_sym("pthread_cond_wait", "GLIBC_2.3.2");
	r.cond_timedwait = next_sym("pthread_cond_timedwait", "GLIBC_2.3.2");
	r.cond_clockwait = next_sym("pthread_cond_clockwait", NULL);
	r.cond_signal = next_sym("pthread_cond_signal", "GLIBC_2.3.2");
	r.cond_broadcast = next_sym("pthread_cond_broadcast", "GLIBC_2.3.2");
	r.create = next_sym("pthread_create", NULL);
	r.join = next_sym("pthread_join", NULL);
	r.exit = next_sym("pthread_exit", NULL);
	r.rw_init = next_sym("pthread_rwlock_init", NULL);
	r.rw_destroy = next_sym("pthread_rwlock_destroy", NULL);
	r.rw_rdlock = next_sym("pthread_rwlock_rdlock", NULL);
	r.rw_tryrdlock = next_sym("pthread_rwlock_tryrdlock", NULL);
	r.rw_timedrdlock = next_sym("pthread_rwlock_timedrdlock", NULL);
	r.rw_clockrdlock = next_sym("pthread_rwlock_clockrdlock", NULL);
	r.rw_wrlock = next_sym("pthread_rwlock_wrlock", NULL);
	r.rw_trywrlock = next_sym("pthread_rwlock_trywrlock", NULL);
	r.rw_timedwrlock = next_sym("pthread_rwlock_timedwrlock", NULL);
	r.rw_clockwrlock = next_sym("pthread_rwlock_clockwrlock", NULL);
	r.rw_unlock = next_sym("pthread_rwlock_unlock", NULL);
	r.spin_init = next_sym("pthread_spin_init", NULL);
	r.spin_destroy = next_sym("pthread_spin_destroy", NULL);
	r.spin_lock = next_sym("pthread_spin_lock", NULL);
	r.spin_trylock = next_sym("pthread_spin_trylock", NULL);
	r.spin_unlock = next_sym("pthread_spin_unlock", NULL);
	prof_real = r;
	resolving = 0;
}

/* Bootstrap paths: used only while prof_real.mutex_* is still NULL. */
int prof_boot_lock(pthread_mutex_t *m)
{
	return __pthread_mutex_lock(m);
}
int prof_boot_trylock(pthread_mutex_t *m)
{
	return __pthread_mutex_trylock(m);
}
int prof_boot_unlock(pthread_mutex_t *m)
{
	return __pthread_mutex_unlock(m);
}
int prof_boot_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	return __pthread_mutex_init(m, a);
}
int prof_boot_destroy(pthread_mutex_t *m)
{
	return __pthread_mutex_destroy(m);
}

/* ---- PAPI ------------------------------------------------------------- */

#ifdef HAVE_PAPI
static int papi_event;

/* Whether the kernel can count a hardware event of this thread (the
 * CPU's PMU is there and we may use it).  One system call: PAPI's
 * initialisation costs ~5 ms of CPU per process (libpfm builds its
 * event tables), most of the library's fixed cost in a short program,
 * and on a machine without counters (a typical VM) it can only fail. */
static bool papi_counters_possible(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* Pick the private-cache miss event the thesis used (L2 data misses), or
 * L1 data misses; a machine without counters fails here. */
void prof_papi_init(void)
{
	int set = PAPI_NULL;
	static const int events[] = {PAPI_L2_DCM, PAPI_L1_DCM};

	if (!papi_counters_possible() ||
	    PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_thread_init(pthread_self) != PAPI_OK ||
	    PAPI_create_eventset(&set) != PAPI_OK) {
		prof_papi_status = "n/a: no hardware counters";
		return;
	}
	prof_papi_status = "n/a: no hardware counters";
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (PAPI_add_event(set, events[i]) == PAPI_OK) {
			papi_event = events[i];
			prof_papi_status = NULL;
			break;
		}
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
}

/* A started event set for the calling thread, or -1. */
int prof_papi_thread(void)
{
	int set = PAPI_NULL;

	if (prof_papi_status || PAPI_register_thread() != PAPI_OK ||
	    PAPI_create_eventset(&set) != PAPI_OK)
		return -1;
	if (PAPI_add_event(set, papi_event) != PAPI_OK ||
	    PAPI_start(set) != PAPI_OK) {
		PAPI_destroy_eventset(&set);
		return -1;
	}
	return set;
}

uint64_t prof_papi_read(int set)
{
	long long v = 0;

	if (set < 0 || PAPI_read(set, &v) != PAPI_OK)
		return 0;
	return (uint64_t)v;
}
#else
void prof_papi_init(void)
{
}
int prof_papi_thread(void)
{
	return -1;
}
uint64_t prof_papi_read(int set)
{
	return 0;
}
#endif

/* ---- constructor, destructor, fork ------------------------------------ */

static void fork_prepare(void)
{
	prof_busy++;
	prof_real.mutex_lock(&prof_reg_lock);
}

static void fork_parent(void)
{
	prof_real.mutex_unlock(&prof_reg_lock);
	prof_busy--;
}

/* The child's only thread is the one that took the registry lock in
 * fork_prepare(): it fixes the registry up, then releases the lock. */
static void fork_child(void)
{
	prof_fork_child();
	prof_signal_fork_child();
	prof_real.mutex_unlock(&prof_reg_lock);
	prof_busy--;
}

__attribute__((constructor)) static void prof_ctor(void)
{
	void *frames[4];
	const char *out = getenv("RCLPROF_OUT");
	const char *sample = getenv("RCLPROF_SAMPLE");
	const char *trace = getenv("RCLPROF_TRACE");
	cpu_set_t cpus;

	prof_resolve();
	if (!out || !*out)
		return; /* loaded without rcl-prof: stay transparent */
	if (sample && atoi(sample) > 0)
		prof_sample = (uint32_t)atoi(sample);
	prof_trace_on = trace && strcmp(trace, "1") == 0;
	/* the CPUs the program may use; it serialises when at most half of
	 * them can be busy (prof_serialising) */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
	    CPU_COUNT(&cpus) > 0)
		prof_ncpu = CPU_COUNT(&cpus);
	prof_serial_max = prof_ncpu / 2 > 1 ? prof_ncpu / 2 : 1;
	prof_dump_dir(out);
	prof_busy++;
	/* backtrace() loads libgcc_s and allocates on its first call: do it
	 * now rather than inside a wrapper. */
	backtrace(frames, 4);
	prof_papi_init();
	if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
		prof_log("pthread_atfork failed: forked children share data");
	prof_busy--;
	atomic_store_explicit(&prof_on, true, memory_order_relaxed);
	(void)prof_self(); /* the main thread's lifetime starts here */
	prof_signal_init();
}

/* exit() or a return from main: the dump, unless a fatal signal or
 * _exit in another thread is already writing it (prof_signal.c). */
__attribute__((destructor)) static void prof_dtor(void)
{
	prof_final_dump(NULL, 0);
}
