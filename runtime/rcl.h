/* SPDX-License-Identifier: MIT */
/*
 * <rcl.h>: the Remote Core Locking runtime.
 *
 * RCL locks are liblock locks with the algorithm "rcl" (liblock_init with
 * attr.algorithm = "rcl", or LIBLOCK_LOCK=rcl).  Their critical sections,
 * passed to liblock_exec(), run on a server: a CPU reserved for them.
 * This header controls the servers and reads their statistics.
 * See rcl(3) and docs/RUNTIME.md.
 *
 * Environment: RCL_SERVERS=CPULIST (server CPUs; the first is the default
 * server; default: the last online CPU), RCL_DEGRADED=1 (no SCHED_FIFO),
 * RCL_STATS=1 (print per-server statistics at exit).
 *
 * Every fallible call returns 0 or a positive errno value.
 */
#ifndef RCL_H
#define RCL_H

#include <stdint.h>

#include <liblock.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCL_API __attribute__((visibility("default")))

/* Start the server on @cpu (LIBLOCK_SERVER_DEFAULT: the default server).
 * Idempotent.  Servers also start by themselves when the first lock
 * assigned to them is initialised.  Returns 0, EINVAL (not an online
 * CPU), ENOMEM, EAGAIN (threads could not be created), or EBUSY (the
 * server is still stopping: a section never finished). */
RCL_API int rcl_server_start(int cpu);

/* Stop the server on @cpu: its threads exit, its CPU is given back to the
 * application.  Sections of its locks requested later run on the calling
 * thread, under the lock, until the server is started again.  Returns 0,
 * EINVAL (no server was ever started there), EDEADLK (called from a
 * section of that server) or EBUSY (a servicing thread is still blocked
 * inside a section after 2 s; it is left to finish). */
RCL_API int rcl_server_stop(int cpu);

/* Stop every server (also done at exit).  Returns 0 or the first error. */
RCL_API int rcl_shutdown(void);

/* The CPU of the default server, or -1 if the configuration is invalid. */
RCL_API int rcl_default_server(void);

/* 1 if servers run without SCHED_FIFO (RCL_DEGRADED=1 or no permission;
 * announced once on stderr), 0 otherwise.  Valid once a server started. */
RCL_API int rcl_degraded(void);

/* Run @fn(@ctx) like liblock_exec() only if @lock is free when the server
 * considers the request: on an RCL lock, the lock is busy while a thread
 * holds its word in a held section (liblock_lock) or another servicing
 * thread is inside one of its sections (a section that blocks or spins).
 * Returns 0 and stores fn's result in *@ret (if not NULL), or EBUSY
 * without running @fn.  On a lock of another algorithm:
 * liblock_trylock(), @fn, liblock_unlock(); ENOTSUP if it has no lock
 * word.  (liblock_trylock() on an RCL lock is the held form: it takes the
 * word in place, see docs/RUNTIME.md.) */
RCL_API int rcl_tryexec(liblock_lock_t *lock, liblock_fn_t fn, void *ctx,
			void **ret);

/* Per-server statistics (see docs/RUNTIME.md for definitions). */
typedef struct rcl_stats {
	int cpu;
	int running;   /* 1 while the server runs */
	int fifo;      /* 1: SCHED_FIFO threads; 0: degraded or shared CPU */
	int exclusive; /* 1: the CPU is reserved (no application thread) */
	uint64_t cs;   /* sections executed from the request array */
	uint64_t cs_inline;	 /* nested sections of this server run inline */
	uint64_t sweeps;	 /* passes over the request array */
	uint64_t active_sweeps;	 /* passes that executed >= 1 section */
	uint64_t scanned_active; /* slots scanned in active passes */
	uint64_t multi_lock_sweeps;   /* active passes serving >= 2 locks */
	uint64_t slow_path;	      /* passes ending in the slow path */
	uint64_t manager_wakeups;     /* manager activations */
	uint64_t alive_misses;	      /* activations finding is_alive unset */
	uint64_t elections;	      /* forced elections */
	uint64_t threads_created;     /* servicing threads created */
	uint64_t threads_reactivated; /* prepared threads woken */
	uint64_t idle_parks;	      /* times the server slept, idle */
	uint64_t cond_waits;	      /* condition waits inside sections */
	uint64_t try_busy;	      /* rcl_tryexec requests refused */
	uint64_t deferred;	      /* requests left pending: the lock was
					 held by, or handed to, a thread
					 running a held section */
	uint64_t shipped;	      /* shipped sections run (rcl_ship_set) */
	uint64_t locks;		      /* live locks assigned to the server */
	uint64_t scan_limit;	      /* slots a sweep scans now (highest
					 live client id + 1, all servers) */
	unsigned int threads;	      /* servicing threads ever in the pool */
	double use_rate;	      /* cs / scanned_active */
	double false_serialization_rate; /* multi_lock / active sweeps */
	double slow_path_rate;		 /* slow_path / sweeps */
} rcl_stats_t;

/* Statistics of the server on @cpu.  Returns 0 or EINVAL (no server was
 * ever started there). */
RCL_API int rcl_stats(int cpu, rcl_stats_t *out);

/* Print every server's statistics to file descriptor @fd (what
 * RCL_STATS=1 prints at exit).  Returns 0 or an errno from write(2). */
RCL_API int rcl_stats_print(int fd);

/* Shipped sections (what rcl-run --lock rcl uses).  With RCL_SHIP_BUSY,
 * a thread calling liblock_lock() on an RCL lock that is busy does not
 * wait for it: its execution context (registers, stack, thread pointer)
 * goes to the lock's server, which runs the code that follows the lock
 * call up to the matching liblock_unlock(), then sends it back.  A free
 * lock is taken in place, as are trylocks and locks taken inside a
 * shipped section.  RCL_SHIP_ALWAYS ships free locks too (every section
 * on the server, as the refactored RCL call does; for measurements and
 * tests).  Returns 0, EINVAL (unknown mode), or ENOTSUP where contexts
 * cannot be shipped (not x86-64, or a sanitizer build): every section
 * then runs in place.  Set it before the program's threads use RCL
 * locks.  See docs/RCL-RUN.md. */
enum { RCL_SHIP_OFF = 0, RCL_SHIP_BUSY = 1, RCL_SHIP_ALWAYS = 2 };
RCL_API int rcl_ship_set(int mode);

/* Inside a section that rcl_ship_set() shipped to a servicing thread:
 * bring the calling code back to its own thread now, still holding the
 * lock, so that the rest of the section runs there in place.  For calls
 * whose effect depends on the kernel thread that makes them: process
 * creation and exec (the new process would inherit the servicing
 * thread's real-time policy, CPU and blocked signals).  fork() needs no
 * call: the runtime's fork handler makes it.  Returns 1 if it brought the
 * code home, 0 if it was not away (or in a vfork child of such a
 * section, which runs on a thread of its own). */
RCL_API int rcl_ship_recall(void);

/* Register the fork handlers of the runtime and of liblock now, once
 * (they are registered when librcl.so is loaded anyway).  For an
 * interposer whose own handlers must come after them: rcl-run registers
 * its handlers before any other library's, and calls this first. */
RCL_API void rcl_atfork_init(void);

typedef struct rcl_ship_counts {
	int mode;	      /* RCL_SHIP_*, as set by rcl_ship_set() */
	uint64_t shipped;     /* sections run away from their thread */
	uint64_t nested;      /* busy locks taken inside a shipped section
			       * or by a servicing thread: in place */
	uint64_t unavailable; /* busy locks taken in place: no running
			       * server, or no wait stack */
	uint64_t exits;	      /* threads that ended inside a shipped
			       * section (brought home to exit) */
} rcl_ship_counts_t;

/* Process-wide counts of shipped sections.  Returns 0 or EINVAL. */
RCL_API int rcl_ship_counts(rcl_ship_counts_t *out);

#ifdef __cplusplus
}
#endif

#endif /* RCL_H */
