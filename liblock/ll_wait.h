/* SPDX-License-Identifier: MIT */
/*
 * The waiting module: the waits of liblock's algorithms and the RCL
 * client's wait for its remote call are written with these pieces.
 * Exceptions, each with its reason at its place: mcstp (time-published
 * waiting) and mutexee (its paper's spin and sleeper counts) keep their
 * papers' loops, and the RCL lock word (runtime/word.c) its own
 * spin-then-park, built from ll_cpu_relax() and ll_futex_*() here.
 *
 *   the poll step   ll_poll(): pause for a budget of polls, then yield the
 *                   CPU on every poll; ll_spin_poll() is the step with the
 *                   default budget (LL_SPIN_YIELD_BUDGET), ll_backoff_step()
 *                   the exponential-backoff form of it;
 *   the policies    spin (poll steps), spin-then-park (LL_SPIN_BUDGET
 *                   pauses, then sleep on a futex);
 *   the handover    a 32-bit word carrying a value plus a sleeper bit:
 *                   ll_wait_while_val() waits under a policy,
 *                   ll_wake_store() / ll_handover() change the value and
 *                   wake a sleeper; ll_spin_until() waits for one value;
 *   the token       ll_self(): a per-thread word that is never 0, for the
 *                   owner fields of the locks;
 *   the gate        for the parking FIFO locks, the admission gate
 *                   (ll_gate_*, at the end): surplus threads park outside
 *                   the queue, so that a handover goes to a waiter that is
 *                   running.
 *
 * The futex word must be an _Atomic uint32_t (or unsigned int) so both
 * sides agree on its size.
 *
 * Why spinning yields.  With more threads than CPUs, a FIFO handover lock
 * (mcs, clh, ticket) passes the lock to a waiter that may be descheduled;
 * every other waiter then burns whole time slices spinning while the lock
 * sits unused, and the queue advances at about one handover per time
 * slice (a convoy).  A waiter that has polled its budget (about one
 * context switch) calls sched_yield() before each further poll, which
 * hands its CPU to the descheduled next-in-line or holder.  On an idle
 * machine the cost is one syscall per poll, and only in waits that were
 * already longer than a context switch.  ll_poll() is the one place that
 * implements this; the spinning loops of liblock and the RCL client's
 * wait call it, but for the exceptions named at the top (whose loops say
 * how they yield or sleep) and the bounded pause of spin-then-park,
 * which sleeps after it rather than yield.
 *
 * Memory model: C11; the futex syscall is a full barrier on
 * Linux, but we do not rely on it: the word is always read with acquire.
 */
#ifndef LL_WAIT_H
#define LL_WAIT_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ll_int.h"

/* The busy-wait hint: lets the sibling hyper-thread run and saves power. */
static inline void ll_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Polls before a spin-then-park waiter sleeps: 20 to 50 us of pause. */
#define LL_SPIN_BUDGET 1024u

/* Polls before a spinning waiter starts to yield: 128 pauses, about the
 * cost of one context switch (7 us at 51 ns per pause, measured on the
 * 2-CPU EPYC test machine), Karlin et al.'s 2-competitive threshold.
 * Measured with the stress suite's lock_api test (4 threads, 2 CPUs, load
 * average 10-20 from other jobs): mcs, clh and ticket took 1 s with this
 * budget, 3-7 s with 1024 polls, and hit the 120 s timeout without
 * yielding at all. */
#define LL_SPIN_YIELD_BUDGET (LL_SPIN_BUDGET / 8u)

/* One poll of a wait that has polled *@polls times: a pause while
 * *@polls < @budget, else a sched_yield() (see the header comment).
 * Counts the poll; the count wraps only after 2^32 polls, and then
 * pauses another @budget polls, which is harmless.  Callers that do
 * something every n polls (the RCL client) read the count. */
static inline void ll_poll(unsigned int *polls, unsigned int budget)
{
	if (__builtin_expect((*polls)++ < budget, 1)) {
		ll_cpu_relax();
		return;
	}
	sched_yield();
}

/* The poll step of liblock's spinning waits: LL_SPIN_YIELD_BUDGET
 * pauses, then yields.  @polls starts at 0 for each wait. */
static inline void ll_spin_poll(unsigned int *polls)
{
	ll_poll(polls, LL_SPIN_YIELD_BUDGET);
}

/* Exponential backoff between two attempts at a lock word: pause *@delay
 * times and double *@delay up to @max; once the wait has lasted
 * LL_SPIN_YIELD_BUDGET pauses (counted in *@spent, 0 at the start of the
 * wait), yield once per attempt instead.  Used where only one thread per
 * NUMA node competes (cbomcs's global lock); backoff.c randomises its
 * delays and takes ll_spin_poll() steps. */
static inline void ll_backoff_step(unsigned int *spent, unsigned int *delay,
				   unsigned int max)
{
	if (*spent >= LL_SPIN_YIELD_BUDGET) {
		sched_yield();
		return;
	}
	for (unsigned int i = 0; i < *delay; i++)
		ll_cpu_relax();
	*spent += *delay;
	if (*delay < max)
		*delay *= 2;
}

/* Spin until *@word == @val, with poll steps of budget @budget.  The load
 * that sees @val is an acquire, pairing with the release store that
 * wrote it (ticket-style grants, combining flags). */
static inline void ll_spin_until(_Atomic uint32_t *word, uint32_t val,
				 unsigned int budget)
{
	unsigned int polls = 0;

	while (atomic_load_explicit(word, memory_order_acquire) != val)
		ll_poll(&polls, budget);
}

/* ---- the per-thread token ------------------------------------------------
 * The address of a thread-local word: never 0, unique among live threads,
 * 8-byte aligned (the low 3 bits are free for flags, as the RCL lock word
 * uses them), and it survives fork() in the thread that forked.  Owner
 * fields of every lock compare it; only the thread itself stores it.
 * Defined in liblock.c; initial-exec, so reading it is one %fs-relative
 * address computation. */
extern __thread uint64_t ll_self_word LL_HIDDEN LL_TLS_FAST;

static inline uintptr_t ll_self(void)
{
	return (uintptr_t)&ll_self_word;
}

enum ll_wait_policy {
	LL_WAIT_SPIN,
	LL_WAIT_SPIN_THEN_PARK,
};

/* Sleep while *@word == @val, until @abstime on @clock (NULL: forever).
 * Returns 0 (woken, or the word had changed) or ETIMEDOUT.  Private
 * futexes: the word must not be shared between processes.  errno is left
 * as it was: a lock call must not change it (glibc's do not, and under
 * rcl-run a section's errno survives its lock and unlock). */
static inline int ll_futex_wait(_Atomic uint32_t *word, uint32_t val,
				const struct timespec *abstime, int clock)
{
	int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG;
	int saved = errno, rc = 0;

	if (clock == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	/* errno is read and written back only when the call failed: a
	 * thread whose section was shipped (rcl-run --lock rcl) wakes its
	 * server while the section, elsewhere, owns its errno */
	if (syscall(SYS_futex, (uint32_t *)word, op, val, abstime, NULL,
		    FUTEX_BITSET_MATCH_ANY) != 0) {
		if (errno == ETIMEDOUT)
			rc = ETIMEDOUT; /* EAGAIN, EINTR: the caller re-checks
					 */
		errno = saved;
	}
	return rc;
}

/* Wake up to @n threads sleeping on @word.  errno is neither read nor
 * written: FUTEX_WAKE on a valid private word does not fail. */
static inline void ll_futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n,
		NULL, NULL, 0);
}

/*
 * A timed acquisition for locks that have only a trylock to offer it: poll
 * @try_lock(@arg) (0, EBUSY, or an error) with a sleep that doubles from
 * 1 us to 1 ms, until it stops answering EBUSY or @abstime (on @clock:
 * CLOCK_REALTIME or CLOCK_MONOTONIC, as pthread_mutex_clocklock() takes)
 * has passed.  Returns 0, ETIMEDOUT, EINVAL (a malformed @abstime or
 * another clock, checked only when the lock is busy, as glibc does), or
 * @try_lock's error.  The caller does not queue: a lock() caller arriving
 * later may get the lock first, and the answer may come up to 1 ms after
 * the deadline.  errno is left as it was (a lock call does not set it).
 */
static inline int ll_try_until(int (*try_lock)(void *), void *arg,
			       clockid_t clock, const struct timespec *abstime)
{
	long pause_ns = 1000;
	struct timespec now, nap;
	int rc, saved = errno;

	while ((rc = try_lock(arg)) == EBUSY) {
		if (!abstime || abstime->tv_nsec < 0 ||
		    abstime->tv_nsec >= 1000000000L ||
		    (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) ||
		    clock_gettime(clock, &now) != 0)
			return EINVAL;
		if (now.tv_sec > abstime->tv_sec ||
		    (now.tv_sec == abstime->tv_sec &&
		     now.tv_nsec >= abstime->tv_nsec))
			return ETIMEDOUT;
		nap.tv_sec = 0;
		nap.tv_nsec = pause_ns;
		if (abstime->tv_sec == now.tv_sec &&
		    abstime->tv_nsec - now.tv_nsec < pause_ns)
			nap.tv_nsec = abstime->tv_nsec - now.tv_nsec;
		if (nanosleep(&nap, NULL) != 0)
			errno = saved; /* EINTR: look again */
		if (pause_ns < 1000000)
			pause_ns *= 2;
	}
	return rc;
}

/*
 * Handover words with a sleeper bit: the waiter may sleep, and the waker
 * may lose the memory around the word the moment it hands over (the
 * woken thread may finish its section, exit, and free its queue node, or
 * destroy the lock).  So the waker must not read anything after its
 * handover store; the "anyone asleep?" answer comes back from the store
 * itself.  Bit 0 of the word (LL_SLEEPER) is set by a waiter before it
 * sleeps; values proper keep bit 0 clear.
 *
 *   waiter: val -> val|SLEEPER by CAS, then futex-wait while val|SLEEPER;
 *   waker:  exchange(new) returns the old word; SLEEPER set -> futex-wake.
 * Both are read-modify-writes of one word, so one of them sees the other:
 * either the waker sees the bit, or the waiter's CAS fails on the new
 * value.  The futex wake passes only the address to the kernel, which is
 * harmless if the memory was freed meanwhile (as in glibc's mutexes).
 */
#define LL_SLEEPER 1u

/* Wait while *@word, sleeper bit aside, equals @val (bit 0 clear), under
 * @policy; returns the new value without the sleeper bit.  The load that
 * sees the change is an acquire, pairing with ll_wake_store()'s release. */
static inline uint32_t ll_wait_while_val(_Atomic uint32_t *word, uint32_t val,
					 enum ll_wait_policy policy)
{
	uint32_t v;
	unsigned int spins = 0, polls = 0;

	while (((v = atomic_load_explicit(word, memory_order_acquire)) &
		~LL_SLEEPER) == val) {
		if (policy == LL_WAIT_SPIN) {
			ll_spin_poll(&polls);
			continue;
		}
		if (++spins < LL_SPIN_BUDGET) {
			ll_cpu_relax();
			continue;
		}
		/* val -> val|SLEEPER, unless another sleeper did it already.
		 * relaxed: the RMW order on @word is what matters here */
		if (v == val &&
		    !atomic_compare_exchange_strong_explicit(
			    word, &v, val | LL_SLEEPER, memory_order_relaxed,
			    memory_order_relaxed))
			continue; /* changed: re-check */
		ll_futex_wait(word, val | LL_SLEEPER, NULL, CLOCK_MONOTONIC);
	}
	return v & ~LL_SLEEPER;
}

/* Set *@word to @val (bit 0 clear), handing over what the caller wrote
 * before (release), and wake one sleeper if there is one.  For a waker
 * that does not know its waiter's policy (the zoo's MCS building block);
 * touches no memory after the exchange. */
static inline void ll_handover(_Atomic uint32_t *word, uint32_t val)
{
	/* release: pairs with ll_wait_while_val's acquire load; the old
	 * value tells whether anyone sleeps */
	if (atomic_exchange_explicit(word, val, memory_order_release) &
	    LL_SLEEPER)
		ll_futex_wake(word, 1);
}

/* Set *@word to @val (bit 0 clear), handing over what the caller wrote
 * before (release), and wake up to @n sleepers.  Touches no memory after
 * the store.  Under LL_WAIT_SPIN nobody sleeps: a plain release store. */
static inline void ll_wake_store(_Atomic uint32_t *word, uint32_t val,
				 enum ll_wait_policy policy, int n)
{
	if (policy == LL_WAIT_SPIN) {
		/* release: pairs with ll_wait_while_val's acquire load */
		atomic_store_explicit(word, val, memory_order_release);
		return;
	}
	/* release: as above; the old value tells whether anyone sleeps */
	if (atomic_exchange_explicit(word, val, memory_order_release) &
	    LL_SLEEPER)
		ll_futex_wake(word, n);
}

/*
 * The admission gate: concurrency restriction for the parking FIFO locks
 * (mcs_stp, clh_stp, ticket_stp, cbomcs_stp, malthusian_stp).
 *
 * Why.  A FIFO lock hands over to the next waiter in line.  With more
 * threads than CPUs, that waiter has usually spun out its budget and
 * parked, so each section costs a futex wake-up and a scheduler round
 * trip (12,000-56,000 cycles per section measured on 2 CPUs, against
 * ~300 for glibc's mutex, which lets a running thread barge).  Spinning
 * longer does not help (the waiters outnumber the CPUs); waking the
 * next-but-one early costs the same wake-ups, only earlier.  What helps is
 * keeping the sleepers out of the queue: Dice's Malthusian locks and
 * Dice and Kogan's generic concurrency restriction (GCR, EuroSys 2019).
 *
 * What.  A thread that finds the lock free takes it at once (the
 * algorithm's trylock: no waiter is passed, so FIFO order among waiters
 * holds).  Otherwise it must be *admitted* before it queues: at most
 * @cap admitted threads wait in the queue at a time, @cap = the CPUs the
 * process may use, minus one for the holder (at least 1).  A thread that
 * finds the queue full becomes *passive*: it parks on the gate's @seq at
 * once, outside the queue, so the queue holds only threads that can be
 * running, and a handover goes to a waiter that is spinning.  Passive
 * threads are woken, one at a time, (a) when a holder that came through
 * the queue leaves it with no admitted waiter (the lock is going idle:
 * liveness), and (b) every LL_GATE_FAIR admitted acquisitions (long-term
 * fairness; a woken thread that still finds the queue full parks again,
 * and after LL_GATE_PATIENCE wake-ups is admitted over the cap).
 * Steady state with T > CPUs: the running threads circulate through the
 * lock, the surplus sleeps, and no section pays a wake-up.
 *
 * Gate word (64 bits): admitted waiters (bits 0-15), passive threads
 * (16-31), admitted acquisitions (32-63, wraps).  Transitions, all RMWs:
 *   admit      waiters+1 (only if waiters < cap, or impatient);
 *   go passive passive+1 (only if waiters >= cap);
 *   re-admit   passive-1, waiters+1 in one CAS;
 *   acquired   waiters-1, acquisitions+1 (the queued thread got the lock).
 * No lost wake-up: a thread goes passive by an RMW that saw waiters >= 1,
 * so the decrement of each of those waiters comes later in the word's
 * modification order and returns a word that counts the passive thread.
 * That waiter, as holder, re-reads the word before it releases (coherence:
 * it reads its own decrement or later); if an admitted waiter remains,
 * that one's decrement comes later still, and so on: the last admitted
 * holder before the queue drains sees waiters == 0 and passive > 0, and
 * wakes.  A passive thread reads @seq before it re-checks the word and
 * sleeps only while @seq is unchanged; a waker re-reads the word before
 * it bumps @seq.  The gate orders only itself; the lock's own
 * acquire/release carries the sections' data, so most gate accesses are
 * relaxed.
 */
#define LL_GATE_WAITER 1ull
#define LL_GATE_PASSIVE (1ull << 16)
#define LL_GATE_ACQ (1ull << 32)
#define LL_GATE_WAITERS(w) ((unsigned int)((w)&0xffffu))
#define LL_GATE_PASSIVES(w) ((unsigned int)(((w) >> 16) & 0xffffu))
/* Admitted acquisitions between two fairness wake-ups (a power of 2). */
#define LL_GATE_FAIR 256u
/* Wake-ups after which a passive thread is admitted over the cap. */
#define LL_GATE_PATIENCE 4u
/* The largest cap: the 16-bit fields must not overflow. */
#define LL_GATE_CAP_MAX 0x3fffu

/* What a holder that came through the queue owes when it leaves. */
enum {
	LL_GATE_DUTY_NONE = 0,	/* took a free lock, or nobody is passive */
	LL_GATE_DUTY_CHECK = 1, /* wake a passive thread if the queue drains */
	LL_GATE_DUTY_WAKE = 2,	/* wake a passive thread (fairness) */
};

struct ll_gate {
	_Atomic uint64_t word; /* see above */
	_Atomic uint32_t seq;  /* futex word of passive threads */
	uint32_t cap;	       /* admitted waiters at most */
};

/* @cap: the CPUs the process may use, minus one (clamped to
 * [1, LL_GATE_CAP_MAX]). */
static inline void ll_gate_init(struct ll_gate *g, unsigned int cap)
{
	atomic_init(&g->word, 0);
	atomic_init(&g->seq, 0);
	g->cap = cap < 1 ? 1 : cap > LL_GATE_CAP_MAX ? LL_GATE_CAP_MAX : cap;
}

/* The caller found the lock taken and is about to queue: returns once it
 * is admitted, parking (passive) while the queue is full. */
static inline void ll_gate_enter(struct ll_gate *g)
{
	/* relaxed: the gate word is only ordered by its RMW order (above) */
	uint64_t w = atomic_load_explicit(&g->word, memory_order_relaxed);
	unsigned int wakes = 0;
	bool passive = false;
	uint32_t s;

	for (;;) {
		if (LL_GATE_WAITERS(w) < g->cap || wakes >= LL_GATE_PATIENCE) {
			uint64_t nw = w + LL_GATE_WAITER -
				      (passive ? LL_GATE_PASSIVE : 0);

			if (atomic_compare_exchange_weak_explicit(
				    &g->word, &w, nw, memory_order_relaxed,
				    memory_order_relaxed))
				return;
			continue;
		}
		/* acquire: orders this read of @seq before the word's
		 * re-check below, pairing with the waker's release bump,
		 * which comes after its own read of the word */
		s = atomic_load_explicit(&g->seq, memory_order_acquire);
		if (!passive) {
			/* go passive: counted before we sleep, so the last
			 * admitted holder sees us (no lost wake-up) */
			if (!atomic_compare_exchange_weak_explicit(
				    &g->word, &w, w + LL_GATE_PASSIVE,
				    memory_order_relaxed, memory_order_relaxed))
				continue;
			passive = true;
		} else {
			w = atomic_load_explicit(&g->word,
						 memory_order_relaxed);
			if (LL_GATE_WAITERS(w) < g->cap)
				continue;
		}
		ll_futex_wait(&g->seq, s, NULL, CLOCK_MONOTONIC);
		wakes++;
		w = atomic_load_explicit(&g->word, memory_order_relaxed);
	}
}

/* An admitted thread got the lock: returns its LL_GATE_DUTY_*, which the
 * algorithm keeps with the holder and passes to ll_gate_leave(). */
static inline unsigned int ll_gate_acquired(struct ll_gate *g)
{
	/* relaxed: see above; the RMW returns a word that counts every
	 * thread that went passive while we were counted as a waiter */
	uint64_t w = atomic_fetch_add_explicit(&g->word,
					       LL_GATE_ACQ - LL_GATE_WAITER,
					       memory_order_relaxed) +
		     LL_GATE_ACQ - LL_GATE_WAITER;

	if (__builtin_expect(LL_GATE_PASSIVES(w) == 0, 1))
		return LL_GATE_DUTY_NONE;
	if ((uint32_t)(w >> 32) % LL_GATE_FAIR == 0)
		return LL_GATE_DUTY_WAKE;
	return LL_GATE_DUTY_CHECK;
}

/* The holder, *before* it releases the lock (afterwards the lock may be
 * destroyed), with its duty: returns true if it must call ll_gate_wake()
 * once it has released. */
static inline bool ll_gate_leave(struct ll_gate *g, unsigned int duty)
{
	uint64_t w;

	if (__builtin_expect(duty == LL_GATE_DUTY_NONE, 1))
		return false;
	/* relaxed: coherence alone makes this read at least as new as our
	 * ll_gate_acquired() RMW */
	w = atomic_load_explicit(&g->word, memory_order_relaxed);
	if (LL_GATE_PASSIVES(w) == 0 ||
	    (duty == LL_GATE_DUTY_CHECK && LL_GATE_WAITERS(w) != 0))
		return false;
	/* release: our read of the word above comes before the bump; pairs
	 * with the acquire load of @seq in ll_gate_enter() */
	atomic_fetch_add_explicit(&g->seq, 1, memory_order_release);
	return true;
}

/* After ll_gate_leave() returned true and the lock was released: wake one
 * passive thread.  Only the address reaches the kernel, so the lock may
 * have been destroyed meanwhile (see the sleeper bit above). */
static inline void ll_gate_wake(struct ll_gate *g)
{
	ll_futex_wake(&g->seq, 1);
}

/* An admitted thread that gives up before it got the lock (its queue node
 * could not be allocated): leave as a holder would. */
static inline void ll_gate_cancel(struct ll_gate *g)
{
	if (ll_gate_leave(g, ll_gate_acquired(g)))
		ll_gate_wake(g);
}

#endif /* LL_WAIT_H */
