/* SPDX-License-Identifier: MIT */
/*
 * Shipped sections: delegation without refactoring (rcl-run --lock rcl).
 *
 * With shipping on (rcl_ship_set()), liblock_lock() on an RCL lock whose
 * word is busy (with RCL_SHIP_ALWAYS: any word) does not wait for it: the
 * caller's execution context goes to the lock's server and the section runs
 * there, from the instruction after the lock call to the matching unlock, on
 * the caller's own stack and with the caller's thread pointer.  So errno, every
 * thread-local variable, pthread_self() and the stack canary inside the section
 * are the caller's, as they were.
 *
 *   client (liblock_lock)            servicing thread (rcl_run -> ship_run)
 *   word busy: block signals,
 *   save context in b->cli, switch
 *   to its wait stack, post
 *   ship_run(b) in its request slot
 *                                    takes the lock word (as for any
 *                                    delegated request), saves its own
 *                                    context in b->srv, loads b->cli:
 *                                    the section runs, then unlocks:
 *                                    liblock_unlock sees rcl_shipped,
 *                                    saves the context in b->cli and
 *                                    loads b->srv; ship_run returns, the
 *                                    word is released, the slot completed
 *   sees the slot completed, loads
 *   b->cli: returns from its unlock
 *   call, restores its signal mask
 *
 * The client waits on a small stack of its own (the section uses the
 * real one) with its signals blocked: a handler would otherwise run in
 * the middle of the section, on another CPU, sharing its errno and
 * thread-locals.  A signal sent meanwhile is delivered when the section
 * ends.  glibc's own two signals (cancellation and set*id) and the
 * synchronous ones stay open.
 *
 * What does not ship, and runs in place on the lock word (word.c):
 *   - a free word: taken at once (an uncontended lock costs one CAS); a
 *     word its server keeps between sections is not free: the section
 *     ships there, where the lock's data was last used;
 *   - trylock and timed locks (rcl-run polls trylock);
 *   - a lock taken inside a shipped section, or by a servicing thread
 *     (nested): the servicing thread takes it with the client's token,
 *     which its client keeps holding after the outer section ships back;
 *   - no running server, or no wait stack (mmap failed): "unavailable".
 * A condition wait needs nothing here: it releases the lock (the context
 * goes home), sleeps on its own thread and takes the lock back.  A thread
 * that exits inside a section (pthread_exit, cancellation, return from
 * its start routine) comes home in the key destructor below, created
 * before any other key of the runtime so that it runs first.
 *
 * fork() inside a shipped section (a section that forks, or a library's
 * fork handler that takes a contended lock) must not run on the servicing
 * thread: the child would be a copy of that thread as the kernel sees it,
 * named after it, SCHED_FIFO on the server's CPU, with its restartable-
 * sequence area registered in a thread descriptor glibc reuses (its
 * sched_getcpu() wrong, and a SIGSEGV once that stack is unmapped).  The
 * runtime's fork prepare handler, which runs after those of the libraries
 * loaded later, calls rcl_ship_recall(): the context goes home still
 * holding the word, and the section, the fork included, goes on in place
 * on its own thread.  Until the fork is over, this thread ships nothing
 * more (prepare handlers registered before the runtime's run after it).
 * A context that runs on its own thread anyway (a client running its own
 * request on a stopped server) forks there; the child keeps the word in
 * place (rcl_ship_forked()).
 *
 * What the section sees of the kernel is the servicing thread's: its tid
 * (gettid(), not glibc's cached one), signal mask, CPU time and
 * scheduling.  docs/RCL-RUN.md lists the consequences.
 *
 * Only on x86-64 (ship_x86_64.S), and not in sanitizer builds: ASan and
 * TSan keep per-thread state that a stack and thread-pointer switch
 * would corrupt.  There, rcl_ship_set(1) returns ENOTSUP and RCL locks
 * run every section in place.
 */
#include "rcl_int.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#if RCL_SHIP_ABLE
#include <sys/auxv.h>
#include <sys/syscall.h>
#endif

/* The wait stack: the wait loop and what it calls (pause, yield, futex
 * wake), without signal handlers. */
#define RCL_SHIP_STACK (64u * 1024u)

_Atomic int rcl_ship_on;
__thread struct rcl_lock *rcl_shipped LL_TLS_FAST;

static pthread_key_t ship_key;
static bool ship_key_ok;
static pthread_once_t ship_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t n_nested, n_unavailable, n_exits, n_own;

#if RCL_SHIP_ABLE

struct rcl_ctx {
	uint64_t rsp, rip, rbx, rbp, r12, r13, r14, r15, fs;
	uint32_t mxcsr;
	uint16_t fpucw, pad;
};
static_assert(offsetof(struct rcl_ctx, rbx) == 16, "ship_x86_64.S");
static_assert(offsetof(struct rcl_ctx, fs) == 64, "ship_x86_64.S");
static_assert(offsetof(struct rcl_ctx, mxcsr) == 72, "ship_x86_64.S");
static_assert(offsetof(struct rcl_ctx, fpucw) == 76, "ship_x86_64.S");

void rcl_ctx_switch(struct rcl_ctx *save, const struct rcl_ctx *load) LL_HIDDEN;
_Noreturn void rcl_ctx_load(const struct rcl_ctx *load) LL_HIDDEN;
void rcl_ctx_entry(void) LL_HIDDEN;
/* read by ship_x86_64.S: wrfsbase is allowed (HWCAP2_FSGSBASE) */
bool rcl_fsgsbase LL_HIDDEN;

/* One per thread that ever shipped, at the top of its wait stack (one
 * mapping: guard page, stack, this).  Written by its thread and, during
 * a shipped section, by the servicing thread running it (srv, cli at
 * the unlock, st); the slot protocol orders the two. */
struct rcl_ship {
	struct rcl_ctx cli;   /* the section's context */
	struct rcl_ctx srv;   /* the servicing thread's, while it runs it */
	struct rcl_ctx entry; /* the empty wait stack */
	struct rcl_lock *lock;
	struct rcl_sthread *st; /* runs the section; NULL: its own thread */
	uint64_t oldmask;	/* the thread's signal mask (kernel sigset) */
	uintptr_t recall;	/* 0, or the token the word goes home with */
	void *map;
	size_t maplen;
};

static __thread struct rcl_ship *ship_blk LL_TLS_FAST;

/* Signals blocked while a context is away: all but glibc's cancellation
 * (32) and set*id (33) signals, and the synchronous ones. */
#define SIGBIT(s) (1ull << ((s)-1))
static const uint64_t ship_mask =
	~(SIGBIT(32) | SIGBIT(33) | SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) |
	  SIGBIT(SIGFPE) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP));

/* rt_sigprocmask without touching errno: the section owns errno while
 * its thread waits. */
static inline void raw_sigmask(int how, const uint64_t *set, uint64_t *old)
{
	register long r10 __asm__("r10") = sizeof(uint64_t);
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_rt_sigprocmask), "D"((long)how),
			   "S"(set), "d"(old), "r"(r10)
			 : "rcx", "r11", "memory");
	(void)ret; /* cannot fail with these arguments */
}

/* Set from the fork prepare handler to the end of the fork: this thread
 * takes its locks in place (rcl_ship_fork()). */
static __thread bool ship_forking;

static struct rcl_ship *ship_block(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len;
	struct rcl_ship *b;
	char *m;

	if (ll_likely(ship_blk != NULL))
		return ship_blk;
	if (!ship_key_ok || pg <= 0)
		return NULL;
	len = (size_t)pg + RCL_SHIP_STACK + (size_t)pg;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m, (size_t)pg, PROT_NONE) != 0) {
		munmap(m, len);
		return NULL;
	}
	b = (struct rcl_ship *)(void *)(m + pg + RCL_SHIP_STACK);
	memset(b, 0, sizeof(*b));
	b->map = m;
	b->maplen = len;
	/* the stack starts below the block, 16-aligned as at a call site
	 * minus the return address: rcl_ctx_entry is jumped to, and calls */
	b->entry.rsp = (uint64_t)(uintptr_t)b;
	b->entry.rip = (uint64_t)(uintptr_t)rcl_ctx_entry;
	b->entry.rbx = (uint64_t)(uintptr_t)b;
	b->entry.fs = (uint64_t)(uintptr_t)__builtin_thread_pointer();
	b->entry.mxcsr = 0x1f80; /* the ABI's initial FP control state */
	b->entry.fpucw = 0x037f;
	if (pthread_setspecific(ship_key, b) != 0) {
		munmap(m, len);
		return NULL;
	}
	ship_blk = b;
	return b;
}

/* The servicing thread's side: run the section, from the client's lock
 * call to its unlock.  The caller (rcl_run) holds the lock's word. */
static void *ship_run(void *ctx)
{
	struct rcl_ship *b = ctx;
	struct rcl_sthread *t = rcl_self;

	b->st = t;
	if (t)
		RCL_COUNT_INC(t->st.shipped);
	else
		atomic_fetch_add_explicit(&n_own, 1, memory_order_relaxed);
	rcl_ctx_switch(&b->srv, &b->cli);
	if (b->recall) {
		/* The context went home holding the word (rcl_ship_recall):
		 * it is the client's now, so rcl_run() does not keep it and
		 * this thread neither keeps nor releases it. */
		rcl_word_pass(b->lock, rcl_token(), b->recall);
		atomic_store_explicit(&t->kept, NULL, memory_order_relaxed);
	}
	return NULL;
}

/* The first and only frame of the wait stack (from rcl_ctx_entry). */
_Noreturn void rcl_ship_wait(struct rcl_ship *b) LL_HIDDEN;
_Noreturn void rcl_ship_wait(struct rcl_ship *b)
{
	rcl_exec_remote(b->lock, ship_run, b, 0, NULL);
	/* complete: the section ran and its context waits in b->cli */
	rcl_ctx_load(&b->cli);
}

int rcl_ship_lock(struct rcl_lock *l)
{
	struct rcl_ship *b;
	int rc;

	if (atomic_load_explicit(&rcl_ship_on, memory_order_relaxed) !=
		    RCL_SHIP_ALWAYS &&
	    (rc = rcl_word_trylock_now(l)) != EBUSY)
		return rc;
	if (rcl_shipped || rcl_self) {
		/* nested: a servicing thread must not post a request of its
		 * own (our slot is the shipped section's); it takes the word
		 * in place, counted as blocked if it may wait */
		atomic_fetch_add_explicit(&n_nested, 1, memory_order_relaxed);
		if (rcl_shipped && ship_blk->st)
			rcl_sthread_blocks(ship_blk->st->srv);
		return rcl_word_lock(l);
	}
	if (rcl_word_held_by_me(l))
		return rcl_word_lock(l); /* EDEADLK, as without shipping */
	if (atomic_load_explicit(&l->server->state, memory_order_relaxed) !=
		    RCL_RUNNING ||
	    ship_forking || (b = ship_block()) == NULL) {
		atomic_fetch_add_explicit(&n_unavailable, 1,
					  memory_order_relaxed);
		return rcl_word_lock(l);
	}
	b->lock = l;
	raw_sigmask(SIG_BLOCK, &ship_mask, &b->oldmask);
	/* read by the section wherever it runs (its TLS is ours); the
	 * request's release publishes it */
	rcl_shipped = l;
	rcl_ctx_switch(&b->cli, &b->entry);
	/* the section, on the thread that runs it (b->st): the word is held
	 * for us, and our unlock comes back through rcl_ship_home() */
	return 0;
}

int rcl_ship_home(void)
{
	struct rcl_ship *b = ship_blk;

	rcl_ctx_switch(&b->cli, &b->srv);
	/* back on our own thread, after the section: the word is released
	 * and our request completed */
	rcl_shipped = NULL;
	raw_sigmask(SIG_SETMASK, &b->oldmask, NULL);
	return 0;
}

int rcl_ship_recall(void)
{
	struct rcl_ship *b = ship_blk;
	struct rcl_lock *l = rcl_shipped;

	/* Away only if this kernel thread is the servicing thread running
	 * the section: a vfork child of it shares our memory and would
	 * resume that thread's own context, not ours. */
	if (!l || !b->st ||
	    syscall(SYS_gettid) !=
		    atomic_load_explicit(&b->st->tid, memory_order_relaxed))
		return 0;
	/* Still on the servicing thread, with our thread-locals: the word
	 * joins the locks we hold in place before it is ours. */
	rcl_word_note_held(l);
	b->recall = rcl_token();
	rcl_ctx_switch(&b->cli, &b->srv);
	/* On our own thread: ship_run() gave us the word and our request
	 * completed, whose acquire (in rcl_exec_remote) orders what the
	 * section did over there before what it does now. */
	b->recall = 0;
	rcl_shipped = NULL;
	raw_sigmask(SIG_SETMASK, &b->oldmask, NULL);
	return 1;
}

void rcl_ship_fork(bool forking)
{
	ship_forking = forking;
}

/* Thread exit: a context still shipped (the thread ends inside a
 * section) comes home first; then the wait stack goes. */
static void ship_exit(void *p)
{
	struct rcl_ship *b = p;

	if (rcl_shipped) {
		atomic_fetch_add_explicit(&n_exits, 1, memory_order_relaxed);
		rcl_ship_home();
	}
	ship_blk = NULL;
	munmap(b->map, b->maplen);
}

void rcl_ship_forked(void)
{
	struct rcl_lock *l = rcl_shipped;

	if (!l)
		return;
	/* fork() inside a shipped section (a fork handler that takes the
	 * lock, then fork): the child's only thread is a copy of the
	 * servicing thread running our context.  It becomes our thread:
	 * the section goes on in place, on a word the child now holds. */
	rcl_shipped = NULL;
	rcl_word_adopt(l);
	raw_sigmask(SIG_SETMASK, &ship_blk->oldmask, NULL);
}

static void ship_key_create(void)
{
	ship_key_ok = pthread_key_create(&ship_key, ship_exit) == 0;
}

int rcl_ship_set(int mode)
{
	if (mode < RCL_SHIP_OFF || mode > RCL_SHIP_ALWAYS)
		return EINVAL;
	/* rcl-run may configure itself before librcl.so's constructors */
	pthread_once(&ship_once, ship_key_create);
	if (mode && !ship_key_ok)
		return ENOTSUP;
	rcl_fsgsbase = (getauxval(AT_HWCAP2) & 2) != 0; /* HWCAP2_FSGSBASE */
	atomic_store_explicit(&rcl_ship_on, mode, memory_order_relaxed);
	return 0;
}

/* Before any other key of the runtime (ids.c, word.c): destructors run
 * in key order, and a context must be home before its client id and its
 * held locks are released.  rcl_ship_set() may come first. */
static __attribute__((constructor(102))) void ship_key_first(void)
{
	pthread_once(&ship_once, ship_key_create);
}

#else /* !RCL_SHIP_ABLE */

int rcl_ship_lock(struct rcl_lock *l)
{
	return rcl_word_lock(l);
}

int rcl_ship_home(void)
{
	return 0;
}

void rcl_ship_forked(void)
{
}

int rcl_ship_recall(void)
{
	return 0;
}

void rcl_ship_fork(bool forking)
{
	(void)forking;
}

int rcl_ship_set(int mode)
{
	(void)ship_key;
	(void)ship_key_ok;
	(void)ship_once;
	if (mode < RCL_SHIP_OFF || mode > RCL_SHIP_ALWAYS)
		return EINVAL;
	if (mode)
		return ENOTSUP;
	return 0;
}

#endif

int rcl_ship_counts(rcl_ship_counts_t *out)
{
	rcl_stats_t st;

	if (!out)
		return EINVAL;
	memset(out, 0, sizeof(*out));
	out->mode = atomic_load_explicit(&rcl_ship_on, memory_order_relaxed);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (rcl_stats(c, &st) == 0)
			out->shipped += st.shipped;
	out->shipped += atomic_load_explicit(&n_own, memory_order_relaxed);
	out->nested = atomic_load_explicit(&n_nested, memory_order_relaxed);
	out->unavailable =
		atomic_load_explicit(&n_unavailable, memory_order_relaxed);
	out->exits = atomic_load_explicit(&n_exits, memory_order_relaxed);
	return 0;
}
