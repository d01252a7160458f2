/* SPDX-License-Identifier: MIT */
/*
 * Waiting policies shared by every algorithm.
 *
 *   spin            busy-wait with the CPU's pause hint, and yield the CPU
 *                   once a wait has lasted LL_SPIN_YIELD_BUDGET polls;
 *   spin-then-park  spin for LL_SPIN_BUDGET polls, then sleep on a futex;
 *   park            sleep on a futex at once.
 *
 * A waiter polls a 32-bit word until it leaves a value
 * (ll_wait_while_val); the thread that changes the word does so with
 * ll_wake_store(), which wakes a parked waiter.  The futex word must be
 * an _Atomic uint32_t (or unsigned int) so both sides agree on its size.
 *
 * Why spinning yields.  With more threads than CPUs, a FIFO handover lock
 * (mcs, clh, ticket) passes the lock to a waiter that may be descheduled;
 * every other waiter then burns whole time slices spinning while the lock
 * sits unused, and the queue advances at about one handover per time
 * slice (a convoy).  A waiter that has polled LL_SPIN_YIELD_BUDGET times
 * (about one context switch) calls sched_yield() before each further
 * poll, which hands its CPU to the descheduled next-in-line or holder.
 * On an idle machine the cost is one syscall per poll, and only in waits
 * that were already longer than a context switch.  ll_spin_poll() is the one
 * place that implements this; every spinning loop of liblock calls it.
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
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/* One poll of a spinning wait; @polls counts the polls of this wait and
 * starts at 0.  Pauses, or yields the CPU once the wait has lasted
 * LL_SPIN_YIELD_BUDGET polls (see the header comment). */
static inline void ll_spin_poll(unsigned int *polls)
{
	if (__builtin_expect(*polls < LL_SPIN_YIELD_BUDGET, 1)) {
		++*polls;
		ll_cpu_relax();
		return;
	}
	sched_yield();
}

enum ll_wait_policy {
	LL_WAIT_SPIN,
	LL_WAIT_SPIN_THEN_PARK,
	LL_WAIT_PARK,
};

/* Sleep while *@word == @val, until @abstime on @clock (NULL: forever).
 * Returns 0 (woken, or the word had changed) or ETIMEDOUT.  Private
 * futexes: the word must not be shared between processes. */
static inline int ll_futex_wait(_Atomic uint32_t *word, uint32_t val,
				const struct timespec *abstime, int clock)
{
	int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG;

	if (clock == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	if (syscall(SYS_futex, (uint32_t *)word, op, val, abstime, NULL,
		    FUTEX_BITSET_MATCH_ANY) == 0)
		return 0;
	return errno == ETIMEDOUT ? ETIMEDOUT : 0; /* EAGAIN, EINTR: re-check */
}

/* Wake up to @n threads sleeping on @word. */
static inline void ll_futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n,
		NULL, NULL, 0);
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
		if (policy == LL_WAIT_SPIN_THEN_PARK &&
		    ++spins < LL_SPIN_BUDGET) {
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

#endif /* LL_WAIT_H */
