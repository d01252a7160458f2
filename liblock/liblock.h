/* SPDX-License-Identifier: MIT */
/*
 * liblock: one API in front of many lock algorithms.
 *
 * A liblock_lock_t is embeddable in user structures.  It holds a pointer to
 * the algorithm's ops table and to the algorithm's own state, which is
 * allocated cache-line aligned by liblock_init() (or lazily, on first use,
 * for locks defined with LIBLOCK_INITIALIZER*).
 *
 * Refactored code uses liblock_exec(): the critical section is a function,
 * and delegation algorithms (RCL, flat combining, CC-Synch, DSM-Synch) may
 * run it on another thread.  Algorithms that have a lock word also offer
 * liblock_lock()/liblock_trylock()/liblock_unlock(); the others return
 * ENOTSUP from those calls, never a wrong answer.
 *
 * Every fallible call returns 0 or a positive errno value, as pthreads do.
 */
#ifndef LIBLOCK_H
#define LIBLOCK_H

/* The private fields below are C11 atomics.  Installed in a system include
 * directory, this header is a system header and a program built as C99
 * with -pedantic (rrdtool: -std=gnu99 -pedantic) hears nothing of them;
 * found through -I (a build tree, rcl-refactor's compile check) it would
 * get one -Wpedantic warning per field.  Say it is one either way. */
#pragma GCC system_header

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The fields that only liblock's own code reads and writes, atomically.
 * C++ before C++23 has no _Atomic: a C++ file that embeds a lock in its
 * structures (a header shared by a program's C and C++ files) sees plain
 * fields of the same size and alignment, which liblock.c checks. */
#ifdef __cplusplus
#define LIBLOCK_ATOMIC(type) type
#else
#include <stdatomic.h>
#define LIBLOCK_ATOMIC(type) _Atomic type
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define LIBLOCK_API __attribute__((visibility("default")))

/* A critical section: takes the context, returns what liblock_exec returns. */
typedef void *(*liblock_fn_t)(void *ctx);

/* Attribute flags. */
enum {
	/* Ignore LIBLOCK_LOCK: this lock keeps the algorithm named here
	 * (benchmarks comparing algorithms side by side use it). */
	LIBLOCK_ATTR_FIXED = 1u << 0,
	/* The thread that holds the lock may take it again: lock and
	 * trylock count one level more, unlock one level less, and
	 * liblock_exec runs its function in place (PTHREAD_MUTEX_RECURSIVE).
	 * Only algorithms with a lock word can be held across calls. */
	LIBLOCK_ATTR_RECURSIVE = 1u << 1,
	/* The thread that holds the lock gets EDEADLK from lock and
	 * timedlock, EBUSY from trylock; unlock by another thread, or of a
	 * free lock, is EPERM (PTHREAD_MUTEX_ERRORCHECK), whatever the
	 * algorithm. */
	LIBLOCK_ATTR_ERRORCHECK = 1u << 2,
};

/* Which server CPU a delegation lock uses when none is given. */
#define LIBLOCK_SERVER_DEFAULT (-1)

typedef struct liblock_attr {
	const char *algorithm; /* NULL: $LIBLOCK_LOCK, else "posix" */
	int server;	       /* CPU of the server (delegation algorithms) */
	unsigned int flags;    /* LIBLOCK_ATTR_* */
} liblock_attr_t;

#define LIBLOCK_ATTR_INITIALIZER                                               \
	{                                                                      \
		NULL, LIBLOCK_SERVER_DEFAULT, 0                                \
	}

/*
 * The lock.  Fields are private: use the functions below.  A lock is
 * "ready" once its algorithm state exists; statically initialised locks
 * become ready on first use (one thread initialises, the others wait).
 */
typedef struct liblock_lock {
	const void *_ops;	    /* const struct ll_ops *, set once ready */
	void *_impl;		    /* the algorithm's state */
	const char *_algorithm;	    /* requested algorithm (lazy init) */
	int _server;		    /* requested server CPU (lazy init) */
	unsigned int _flags;	    /* requested LIBLOCK_ATTR_* (lazy init) */
	LIBLOCK_ATOMIC(int) _state; /* 0 uninit, 1 initialising, even: ready */
	/* RECURSIVE and ERRORCHECK locks: the levels the holder took beyond
	 * the first, and its token (0 when no thread holds the lock word) */
	unsigned int _depth;
	LIBLOCK_ATOMIC(uintptr_t) _owner;
} liblock_lock_t;

/* Static initialisers: the algorithm comes from $LIBLOCK_LOCK (or posix),
 * or from the name given, on first use. */
#define LIBLOCK_INITIALIZER                                                    \
	{                                                                      \
		NULL, NULL, NULL, LIBLOCK_SERVER_DEFAULT, 0, 0, 0, 0           \
	}
#define LIBLOCK_INITIALIZER_ALGO(name, server)                                 \
	{                                                                      \
		NULL, NULL, (name), (server), 0, 0, 0, 0                       \
	}
/* ... with LIBLOCK_ATTR_* @flags (LIBLOCK_ATTR_RECURSIVE: the static
 * initializer of a recursive mutex) */
#define LIBLOCK_INITIALIZER_FLAGS(name, server, flags)                         \
	{                                                                      \
		NULL, NULL, (name), (server), (flags), 0, 0, 0                 \
	}

/* Condition variable usable with every algorithm (waits on a futex).
 * Private fields; LIBLOCK_COND_INITIALIZER uses CLOCK_REALTIME. */
typedef struct liblock_cond {
	/* the futex word, bumped by signal and broadcast */
	LIBLOCK_ATOMIC(unsigned int) _seq;
	LIBLOCK_ATOMIC(unsigned int) _waiters; /* threads inside a wait */
	int _clock; /* clock of timed waits' absolute deadlines */
	int _magic; /* detects use of a destroyed cond */
} liblock_cond_t;

#define LIBLOCK_COND_MAGIC 0x6c6c6376
#define LIBLOCK_COND_INITIALIZER                                               \
	{                                                                      \
		0, 0, CLOCK_REALTIME, LIBLOCK_COND_MAGIC                       \
	}

/*
 * Initialise @lock with @attr (NULL: defaults).
 * Returns 0, EINVAL (unknown algorithm, or a server CPU that does not
 * exist), ENOMEM, or the algorithm's own error.
 */
LIBLOCK_API int liblock_init(liblock_lock_t *lock, const liblock_attr_t *attr);

/* The LIBLOCK_ATTR_* flags that give a lock the type of a mutex made with
 * @attr (NULL: a default mutex): LIBLOCK_ATTR_RECURSIVE for
 * PTHREAD_MUTEX_RECURSIVE, LIBLOCK_ATTR_ERRORCHECK for
 * PTHREAD_MUTEX_ERRORCHECK, else 0.  What rcl-refactor puts in the
 * attribute of a converted pthread_mutex_init(&m, &attr). */
LIBLOCK_API unsigned int
liblock_mutexattr_flags(const pthread_mutexattr_t *attr);

/* Destroy @lock.  Returns 0, EBUSY if the lock is held (where the algorithm
 * can tell), or EINVAL if @lock was never initialised.  A lock defined
 * with a static initialiser and never used destroys to 0.  Unlike a glibc
 * mutex, an initialised (or used) lock owns memory: freeing the memory of
 * @lock, or initialising it again, without this call leaks the
 * algorithm's state.  A lock that stays reachable until exit (a static
 * one) needs no destroy. */
LIBLOCK_API int liblock_destroy(liblock_lock_t *lock);

/* Run @fn(@ctx) in mutual exclusion with every other critical section of
 * @lock, possibly on another thread, and return its result. */
LIBLOCK_API void *liblock_exec(liblock_lock_t *lock, liblock_fn_t fn,
			       void *ctx);

/* Lock word API.  Return 0; ENOTSUP when the algorithm has no lock word
 * (delegation algorithms); EBUSY from trylock when the lock is held;
 * EPERM from unlock by a thread that does not hold it, where the
 * algorithm can tell. */
LIBLOCK_API int liblock_lock(liblock_lock_t *lock);
LIBLOCK_API int liblock_trylock(liblock_lock_t *lock);
LIBLOCK_API int liblock_unlock(liblock_lock_t *lock);

/* Take @lock's word, giving up at @abstime (CLOCK_REALTIME for
 * timedlock, @clock -- CLOCK_REALTIME or CLOCK_MONOTONIC -- for
 * clocklock), as pthread_mutex_timedlock()/clocklock() do: 0, ETIMEDOUT,
 * EINVAL for a malformed @abstime or another clock (checked only when the
 * lock is busy), ENOTSUP when the algorithm has no lock word.  The thread
 * polls liblock_trylock() with a sleep that doubles from 1 us to 1 ms: it
 * does not queue, and may return up to 1 ms after the deadline. */
LIBLOCK_API int liblock_timedlock(liblock_lock_t *lock,
				  const struct timespec *abstime);
LIBLOCK_API int liblock_clocklock(liblock_lock_t *lock, clockid_t clock,
				  const struct timespec *abstime);

/* liblock_unlock(@lock), as a pthread_cleanup_push() handler: the
 * section's thread, cancelled, releases the lock it holds.  (What
 * rcl-refactor gives the push in place of pthread_mutex_unlock or of an
 * unlock wrapper.) */
LIBLOCK_API void liblock_cleanup_unlock(void *lock);

/* Name of the algorithm @lock runs (initialises it if needed). */
LIBLOCK_API const char *liblock_lock_algorithm(liblock_lock_t *lock);

/* Condition variables.  @attr may be NULL; its clock is honoured.
 * wait/timedwait must be called in a critical section of @lock (between
 * liblock_lock and liblock_unlock, or inside a liblock_exec function).
 * timedwait returns ETIMEDOUT when @abstime passed; EINVAL for a
 * malformed @abstime; spurious wake-ups are possible, as with pthreads.
 * destroy returns EBUSY while threads wait. */
LIBLOCK_API int liblock_cond_init(liblock_cond_t *cond,
				  const pthread_condattr_t *attr);
LIBLOCK_API int liblock_cond_wait(liblock_cond_t *cond, liblock_lock_t *lock);
LIBLOCK_API int liblock_cond_timedwait(liblock_cond_t *cond,
				       liblock_lock_t *lock,
				       const struct timespec *abstime);
LIBLOCK_API int liblock_cond_signal(liblock_cond_t *cond);
LIBLOCK_API int liblock_cond_broadcast(liblock_cond_t *cond);
LIBLOCK_API int liblock_cond_destroy(liblock_cond_t *cond);

/* Capabilities of an algorithm, for tools that list or test them. */
enum {
	LIBLOCK_CAP_LOCK = 1u << 0,	  /* lock/trylock/unlock work */
	LIBLOCK_CAP_DELEGATION = 1u << 1, /* sections may run elsewhere */
	LIBLOCK_CAP_SERVER = 1u << 2,	  /* needs a dedicated server CPU */
	LIBLOCK_CAP_NUMA = 1u << 3,	  /* reads the NUMA topology */
	LIBLOCK_CAP_PARK = 1u << 4,	  /* waiters may sleep in the kernel */
	LIBLOCK_CAP_OWNER = 1u << 5,	  /* unlock by a non-owner: EPERM */
};

typedef struct liblock_algorithm_info {
	const char *name;
	const char *summary; /* one line, for listings */
	unsigned int caps;   /* LIBLOCK_CAP_* */
} liblock_algorithm_info_t;

/* NULL-terminated list of algorithm names, in a stable order. */
LIBLOCK_API const char *const *liblock_algorithms(void);

/* Describe algorithm @name into @info.  Returns 0 or EINVAL. */
LIBLOCK_API int liblock_algorithm_info(const char *name,
				       liblock_algorithm_info_t *info);

#ifdef __cplusplus
}
#endif

#endif /* LIBLOCK_H */
