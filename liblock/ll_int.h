/* SPDX-License-Identifier: MIT */
/*
 * liblock internals shared by every algorithm: the ops table, padding
 * macros, logging, topology, allocation on the right NUMA node,
 * per-(lock, thread) queue nodes.  Waiting primitives live in ll_wait.h.
 *
 * Memory model: C11 atomics only.  Nothing here relies on x86-TSO.
 */
#ifndef LL_INT_H
#define LL_INT_H

#include "config.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "liblock.h"
#include "ll_alloc.h"

struct ll_gate;

/* ---- padding ---------------------------------------------------------- */

/* LL_CACHELINE comes from configure (128 on x86: adjacent-line prefetch). */
#define LL_ALIGNED __attribute__((aligned(LL_CACHELINE)))
/* Round @n up to whole padding units. */
#define LL_ROUND_LINE(n)                                                       \
	(((n) + LL_CACHELINE - 1) / LL_CACHELINE * LL_CACHELINE)

#define LL_HIDDEN __attribute__((visibility("hidden")))
/* Thread-local data read on a lock's fast path: initial-exec, one
 * %fs-relative access instead of a __tls_get_addr() call.  librcl.so is
 * linked at start-up; a dlopen() gets it from glibc's surplus static TLS
 * (its thread-local data is under 128 bytes). */
#define LL_TLS_FAST __attribute__((tls_model("initial-exec")))
#define ll_likely(x) __builtin_expect(!!(x), 1)
#define ll_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- the ops table ---------------------------------------------------- */

struct ll_ops {
	const char *name;    /* lowercase, [a-z0-9_] */
	const char *summary; /* one line for listings */
	unsigned int caps;   /* LIBLOCK_CAP_* */

	/* Allocate and initialise the algorithm state into *@impl.
	 * Returns 0, EINVAL, ENOMEM. */
	int (*init)(void **impl, const liblock_attr_t *attr);
	/* Free the state.  Returns 0, or EBUSY (state kept) if held. */
	int (*destroy)(void *impl);

	/* Lock word API; NULL entries make the wrappers return ENOTSUP.
	 * trylock returns 0 or EBUSY; unlock returns 0 or EPERM. */
	int (*lock)(void *impl);
	int (*trylock)(void *impl);
	int (*unlock)(void *impl);

	/* Run fn(ctx) in mutual exclusion and return its result.  NULL means
	 * lock(); fn(ctx); unlock(). */
	void *(*exec)(void *impl, liblock_fn_t fn, void *ctx);

	/* Wait on @cond inside a critical section of this lock: release
	 * the lock, sleep until signalled (or @abstime, NULL = none), take
	 * the lock again.  NULL means the generic protocol built on
	 * unlock()/lock() (cond_wait_generic() in liblock.c, written with
	 * the ll_cond_* steps below).  Returns 0 or ETIMEDOUT. */
	int (*cond_wait)(void *impl, liblock_cond_t *cond,
			 const struct timespec *abstime);

	/* The lock's admission gate (ll_wait.h), for tests; NULL if it has
	 * none (only the parking FIFO locks have one). */
	struct ll_gate *(*gate)(void *impl);
};

/* ---- the registry (registry.c) ---------------------------------------
 * liblock's own algorithms are a static table.  The RCL runtime's "rcl"
 * (runtime/client.c, ll_rcl_ops) comes last when the runtime is linked in
 * (librcl.so); liblock refers to it weakly, so a build of liblock alone
 * lists the built-in ones only.  A reference, not a registration by a
 * constructor: a lookup made before librcl.so's constructors run -- rcl-run
 * configuring itself from the constructor of a library librcl.so depends
 * on, when that library's malloc() takes a mutex -- finds "rcl" too. */

/* The @i-th algorithm in listing order (built-in ones, then "rcl"); NULL
 * past the end. */
const struct ll_ops *ll_ops_at(size_t i) LL_HIDDEN;
/* Look up @name (or one of its aliases); NULL if unknown. */
const struct ll_ops *ll_ops_find(const char *name) LL_HIDDEN;
/* The RCL runtime's algorithm; NULL (weak) in a liblock without it. */
extern const struct ll_ops ll_rcl_ops __attribute__((weak)) LL_HIDDEN;

/* ---- the lock record ----------------------------------------------------
 * liblock_lock_t's fields are private to liblock.c.  Code in the tree
 * that needs the algorithm behind a lock (the RCL runtime, the rcl-run
 * interposer, white-box tests) reads them through these.  Valid once the
 * lock is ready: liblock_init() returned 0, or a liblock call on a
 * statically initialised lock returned (it initialises the lock);
 * liblock_lock_algorithm() is the cheapest such call. */
static inline const struct ll_ops *ll_lock_ops(const liblock_lock_t *lock)
{
	return lock->_ops;
}

static inline void *ll_lock_impl(const liblock_lock_t *lock)
{
	return lock->_impl;
}

/* Whether @lock is recursive or error-checking and the calling thread
 * holds it through liblock_lock/trylock (liblock.c records the holder of
 * those locks only). */
bool ll_lock_owned_by_me(liblock_lock_t *lock) LL_HIDDEN;

/* ---- the generic condition-variable protocol ---------------------------
 * Any algorithm's cond_wait can be written as:
 *   seq = ll_cond_enter(cond);  release the lock;
 *   rc = ll_cond_sleep(cond, seq, abstime);  take the lock again;
 *   ll_cond_leave(cond);  return rc;
 * A signal between ll_cond_enter and ll_cond_sleep changes seq, so the
 * sleep returns at once: no lost wake-up. */
unsigned int ll_cond_enter(liblock_cond_t *cond) LL_HIDDEN;
int ll_cond_sleep(liblock_cond_t *cond, unsigned int seq,
		  const struct timespec *abstime) LL_HIDDEN;
void ll_cond_leave(liblock_cond_t *cond) LL_HIDDEN;

/* ---- logging ---------------------------------------------------------- */

enum ll_level { LL_DEBUG, LL_INFO, LL_WARN, LL_ERROR };

/* One write(2) of "librcl: LEVEL: message (file:line)\n"; no malloc, so it
 * is safe in the preload libraries and in signal-free early start-up. */
void ll_log_at(enum ll_level level, const char *file, int line, const char *fmt,
	       ...) LL_HIDDEN __attribute__((format(printf, 4, 5)));
_Noreturn void ll_fatal_at(const char *file, int line, const char *fmt,
			   ...) LL_HIDDEN __attribute__((format(printf, 3, 4)));
#define ll_log(level, ...) ll_log_at((level), __FILE__, __LINE__, __VA_ARGS__)
#define ll_fatal(...) ll_fatal_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---- topology (topology.c) --------------------------------------------- */

/* Does libnuma work on this machine (numa_available())? */
bool ll_numa_ok(void) LL_HIDDEN;
/* Number of configured CPUs, and the NUMA node of @cpu (0 without NUMA). */
int ll_cpu_count(void) LL_HIDDEN;
int ll_cpu_node(int cpu) LL_HIDDEN;
/* NUMA node of the calling thread's current CPU. */
int ll_current_node(void) LL_HIDDEN;
/* Is @cpu an online CPU of this machine? */
bool ll_cpu_online(int cpu) LL_HIDDEN;
/* The admission gate's cap for a new lock (ll_wait.h): the CPUs the
 * calling thread may run on, minus one for the holder, at least 1.
 * Tests may force it with ll_gate_cap_fake(). */
unsigned int ll_gate_cap(void) LL_HIDDEN;
/* Tests only: locks built from now on get cap @cap (0: the real one). */
void ll_gate_cap_fake(unsigned int cap) LL_HIDDEN;

/* ---- allocation (alloc.c) --------------------------------------------- */

/* Zeroed, cache-line-aligned memory for small objects, from glibc's heap
 * (ll_alloc.h); free with ll_free().  Placement follows first touch: an
 * object allocated and zeroed by the thread that uses it lands on that
 * thread's node (glibc arenas are per thread).  Returns NULL on failure. */
void *ll_zalloc(size_t size) LL_HIDDEN;
/* Page-granular, zeroed memory bound to NUMA node @node (falls back to
 * ll_zalloc semantics when NUMA is unavailable); free with ll_node_free. */
void *ll_node_alloc(size_t size, int node) LL_HIDDEN;
void ll_node_free(void *p, size_t size) LL_HIDDEN;

/* ---- per-(lock, thread) nodes ------------------------------------------
 * Queue locks need one node per (lock, thread).  A lock embeds a
 * struct ll_lock_key (a process-unique id) and asks for its node with
 * ll_tnode(); the node is allocated on first use, by the calling thread,
 * zeroed and cache-line aligned, and freed when the thread exits or when
 * ll_tnode_forget() is called by that thread.  A destroyed lock's id is
 * never reused, so a stale entry can never be handed to a new lock. */
struct ll_lock_key {
	uint64_t id;
};

void ll_lock_key_init(struct ll_lock_key *key) LL_HIDDEN;
/* This thread's node of size @size for @key, and @dtor(node) runs just
 * before the node is freed (thread exit or ll_tnode_forget), in the owning
 * thread: for nodes that hold pointers to memory the thread owns (CLH's
 * migrating queue nodes).  @dtor must not touch the lock, which may be
 * destroyed by then.  The first call for a key fixes the dtor.  NULL on
 * ENOMEM.  @size must be the same on every call for one key. */
void *ll_tnode_dtor(const struct ll_lock_key *key, size_t size,
		    void (*dtor)(void *node)) LL_HIDDEN;
/* The calling thread's last node (tnode.c); id 0 when none. */
struct ll_tnode_last {
	uint64_t id;
	void *node;
};
extern __thread struct ll_tnode_last ll_tnode_last LL_HIDDEN LL_TLS_FAST;
/* The locks the calling thread took and has not released: counted by
 * liblock_lock/trylock/unlock (liblock.c) and by rcl-run's fast path,
 * which calls the algorithms directly (interpose/pti_mutex.c, another
 * library: hence not hidden; not part of the API).  A thread that exits
 * holding a queue lock leaves its node in the queue, where the next
 * waiter writes to it: its nodes are then kept (tnode.c). */
extern __thread long liblock_held_locks_ LIBLOCK_API LL_TLS_FAST;
/* Count a lock taken (@rc 0) or released by the calling thread. */
static inline int ll_note_taken(int rc)
{
	if (ll_likely(rc == 0))
		liblock_held_locks_++;
	return rc;
}
static inline int ll_note_released(int rc)
{
	if (ll_likely(rc == 0))
		liblock_held_locks_--;
	return rc;
}
/* ll_tnode_dtor() without a dtor; inline for a thread's last lock. */
static inline void *ll_tnode(const struct ll_lock_key *key, size_t size)
{
	if (ll_likely(ll_tnode_last.id == key->id))
		return ll_tnode_last.node;
	return ll_tnode_dtor(key, size, NULL);
}
/* Drop the calling thread's node for @key (if any). */
void ll_tnode_forget(const struct ll_lock_key *key) LL_HIDDEN;

/* Register liblock's fork handlers (liblock.c), once; also done when the
 * library is loaded. */
void ll_fork_setup(void) LL_HIDDEN;

#endif /* LL_INT_H */
