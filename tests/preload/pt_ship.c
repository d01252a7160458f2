/* SPDX-License-Identifier: MIT */
/*
 * pt_ship: what must stay true when rcl-run --lock rcl ships sections to
 * the server (t_ship.sh).  A plain pthread program: it does not know about
 * rcl-run, and passes without it.  Each check runs inside critical
 * sections that contend, so that under rcl-run many of them run on a
 * servicing thread; a section sees that it ran away from its thread when
 * the kernel's tid (gettid) differs from the one its thread noted.
 *
 *   pt_ship [THREADS]   prints "away N" (sections that ran away) and
 *                       exits 0, or names the first broken check
 *
 * Checks: errno, a __thread variable and pthread_self() are the thread's
 * own inside and after a section; a stack-protected frame in the section
 * (built with -fstack-protector-all); nested sections of another mutex
 * and of a process-shared (POSIX-only) mutex; hand-over-hand locking (a
 * mutex taken in a section still held after its unlock); a condition wait
 * inside a section, signalled from another section; signals sent to waiting
 * threads run their handler on that thread; a section that sleeps in a
 * system call; trylock and timedlock; a thread that exits inside a
 * section through pthread_exit with a cleanup handler that unlocks, and
 * one that returns holding a mutex; fork with fork handlers that take
 * the mutexes, while other threads are in sections.
 */
#define _GNU_SOURCE
#include "pt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 4000

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t inner = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t pshared;

static long counter, inner_counter, pshared_counter;
static int queue; /* items, under qlock */
static atomic_long away, handled_wrong, handled;

static __thread int tls_index;
static __thread pid_t tls_tid;

pid_t gettid_raw(void);
pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A frame the stack protector guards, run inside sections. */
static __attribute__((noinline)) unsigned int canary_frame(int i)
{
	volatile char buf[64];
	unsigned int sum = 0;

	memset((char *)buf, i & 0x7f, sizeof(buf));
	for (size_t k = 0; k < sizeof(buf); k++)
		sum += (unsigned char)buf[k];
	return sum;
}

/* Inside a section: everything thread-specific is still ours. */
static void check_identity(int idx, pthread_t self, int *errno_addr,
			   int *tls_addr)
{
	if (gettid_raw() != tls_tid)
		atomic_fetch_add_explicit(&away, 1, memory_order_relaxed);
	if (tls_index != idx || &tls_index != tls_addr)
		FAIL("thread %d: a thread-local reads %d in a section", idx,
		     tls_index);
	if (&errno != errno_addr)
		FAIL("thread %d: errno is another thread's in a section", idx);
	if (!pthread_equal(pthread_self(), self))
		FAIL("thread %d: pthread_self() changed in a section", idx);
}

static void on_usr1(int sig)
{
	(void)sig;
	/* runs on the thread it was sent to, with that thread's locals */
	if (tls_tid != 0 && gettid_raw() != tls_tid)
		atomic_fetch_add(&handled_wrong, 1);
	atomic_fetch_add(&handled, 1);
}

#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
static void fork_prepare(void)
{
	CHECK(pthread_mutex_lock(&qlock));
	CHECK(pthread_mutex_lock(&big));
}

static void fork_release(void)
{
	CHECK(pthread_mutex_unlock(&big));
	CHECK(pthread_mutex_unlock(&qlock));
}
#endif

static void unlock_cleanup(void *m)
{
	pthread_mutex_unlock(m);
}

/* Exits inside a section; the cleanup handler unlocks. */
static void *exiter(void *arg)
{
	(void)arg;
	tls_tid = gettid_raw();
	pthread_mutex_lock(&big);
	pthread_cleanup_push(unlock_cleanup, &big);
	counter++;
	pthread_exit(NULL);
	pthread_cleanup_pop(0);
	return NULL;
}

/* Returns from its start routine holding a mutex (as glibc allows: the
 * mutex stays locked); under rcl-run its section ran shipped. */
static pthread_mutex_t orphan = PTHREAD_MUTEX_INITIALIZER;
static void *leaver(void *arg)
{
	(void)arg;
	tls_tid = gettid_raw();
	pthread_mutex_lock(&orphan);
	return NULL;
}

static void *touch_big(void *arg)
{
	(void)arg;
	CHECK(pthread_mutex_lock(&big));
	counter++;
	CHECK(pthread_mutex_unlock(&big));
	return NULL;
}

static void *touch_orphan(void *arg)
{
	(void)arg;
	CHECK(pthread_mutex_lock(&orphan));
	CHECK(pthread_mutex_unlock(&orphan));
	return NULL;
}

/* Start @fn while the mutex it wants is held here for 50 ms, so that
 * under rcl-run its lock call finds the word busy and ships (@warm: a
 * thread met the mutex held before, so it has its RCL lock already:
 * the first contention of a mutex is met on glibc's word, see rcl-run's
 * thin mutexes). */
static void run_held(pthread_mutex_t *m, void *(*fn)(void *),
		     void *(*warm)(void *))
{
	pthread_t t;

	if (warm) {
		CHECK(pthread_mutex_lock(m));
		CHECK(pthread_create(&t, NULL, warm, NULL));
		usleep(20000);
		CHECK(pthread_mutex_unlock(m));
		CHECK(pthread_join(t, NULL));
	}
	CHECK(pthread_mutex_lock(m));
	CHECK(pthread_create(&t, NULL, fn, NULL));
	usleep(50000);
	CHECK(pthread_mutex_unlock(m));
	CHECK(pthread_join(t, NULL));
}

static void *worker(void *arg)
{
	int idx = (int)(long)arg;
	pthread_t self = pthread_self();
	struct timespec ts;

	tls_index = idx;
	tls_tid = gettid_raw();
	for (int i = 0; i < ROUNDS; i++) {
		unsigned int c;

		errno = 1000 + idx;
		CHECK(pthread_mutex_lock(&big));
		check_identity(idx, self, &errno, &tls_index);
		if (errno != 1000 + idx)
			FAIL("thread %d: errno %d in a section, want %d", idx,
			     errno, 1000 + idx);
		c = canary_frame(i);
		if (c != 64u * (unsigned int)(i & 0x7f))
			FAIL("thread %d: a stack frame went wrong", idx);
		counter++;
		if (i % 7 == 0) { /* nested: another mutex, a POSIX one */
			CHECK(pthread_mutex_lock(&inner));
			inner_counter++;
			CHECK(pthread_mutex_lock(&pshared));
			pshared_counter++;
			CHECK(pthread_mutex_unlock(&pshared));
			CHECK(pthread_mutex_unlock(&inner));
		}
		if (i % 500 == 0)
			usleep(200); /* blocks in a system call */
		errno = 2000 + idx;  /* set in the section, read after it */
		CHECK(pthread_mutex_unlock(&big));
		if (errno != 2000 + idx)
			FAIL("thread %d: errno set in a section is lost (%d)",
			     idx, errno);
		check_identity(idx, self, &errno, &tls_index);

		if (i % 50 == 0) {
			if (pthread_mutex_trylock(&big) == 0) {
				counter++;
				CHECK(pthread_mutex_unlock(&big));
			} else {
				CHECK(pthread_mutex_lock(&big));
				counter++;
				CHECK(pthread_mutex_unlock(&big));
			}
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 10;
			CHECK(pthread_mutex_timedlock(&big, &ts));
			counter++;
			CHECK(pthread_mutex_unlock(&big));
		}
	}
	return NULL;
}

/* Hand over hand: big's section ends while inner is held, so under
 * rcl-run inner, taken in place inside a shipped section, stays held by
 * this thread after the context came home. */
#define HOH_ROUNDS 2000
static long hoh_counter; /* under inner */
static void *hand_over_hand(void *arg)
{
	(void)arg;
	tls_tid = gettid_raw();
	for (int i = 0; i < HOH_ROUNDS; i++) {
		CHECK(pthread_mutex_lock(&big));
		counter++;
		CHECK(pthread_mutex_lock(&inner));
		CHECK(pthread_mutex_unlock(&big));
		hoh_counter++;
		CHECK(pthread_mutex_unlock(&inner));
	}
	return NULL;
}

/* Consumer: waits inside sections; producers signal from sections. */
static void *consumer(void *arg)
{
	long n = (long)arg;

	tls_tid = gettid_raw();
	for (long i = 0; i < n; i++) {
		CHECK(pthread_mutex_lock(&qlock));
		while (queue == 0)
			CHECK(pthread_cond_wait(&qcond, &qlock));
		if (gettid_raw() != tls_tid)
			atomic_fetch_add(&away, 1);
		queue--;
		CHECK(pthread_mutex_unlock(&qlock));
	}
	return NULL;
}

static void *producer(void *arg)
{
	long n = (long)arg;

	tls_tid = gettid_raw();
	for (long i = 0; i < n; i++) {
		CHECK(pthread_mutex_lock(&qlock));
		queue++;
		CHECK(pthread_cond_signal(&qcond));
		CHECK(pthread_mutex_unlock(&qlock));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64], q[4], h[2];
	pthread_mutexattr_t ma;
	struct sigaction sa;
	long extra = 0;
	int status;
	pid_t pid;

	if (nthreads < 1 || nthreads > 64)
		FAIL("threads: 1..64");
	CHECK(pthread_mutexattr_init(&ma));
	CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
	CHECK(pthread_mutex_init(&pshared, &ma));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	CHECK(sigaction(SIGUSR1, &sa, NULL));

	/* threads that end inside a section: pthread_exit with a cleanup
	 * handler that unlocks, and a return holding the lock */
	run_held(&big, exiter, touch_big);
	extra += 2;
	run_held(&orphan, leaver, touch_orphan);

	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(long)i));
	CHECK(pthread_create(&q[0], NULL, consumer, (void *)20000L));
	CHECK(pthread_create(&q[1], NULL, consumer, (void *)20000L));
	CHECK(pthread_create(&q[2], NULL, producer, (void *)20000L));
	CHECK(pthread_create(&q[3], NULL, producer, (void *)20000L));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&h[i], NULL, hand_over_hand, NULL));

	/* signals to threads that may be waiting for a shipped section */
	for (int k = 0; k < 200; k++) {
		pthread_kill(t[k % nthreads], SIGUSR1);
		usleep(100);
	}
	/* fork while sections run, with fork handlers that take the
	 * mutexes (so the fork itself may run inside a shipped section);
	 * the child has one thread and uses them.  Not under sanitizers:
	 * they are not fork-safe in a multithreaded process (and sanitizer
	 * builds do not ship). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "pt: fork skipped: sanitizer build\n");
	(void)status;
	(void)pid;
#else
	CHECK(pthread_atfork(fork_prepare, fork_release, fork_release));
	pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		pthread_mutex_lock(&big);
		counter++;
		pthread_mutex_unlock(&big);
		pthread_mutex_lock(&qlock);
		pthread_mutex_unlock(&qlock);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		FAIL("the fork child failed (status %#x)", status);
#endif

	for (int i = 0; i < nthreads; i++)
		CHECK(pthread_join(t[i], NULL));
	for (int i = 0; i < 4; i++)
		CHECK(pthread_join(q[i], NULL));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(h[i], NULL));
	extra += 2 * HOH_ROUNDS;
	if (hoh_counter != 2 * HOH_ROUNDS)
		FAIL("hand-over-hand counter %ld, want %d", hoh_counter,
		     2 * HOH_ROUNDS);

	/* ROUNDS sections, plus 2 more every 50 rounds, per worker */
	if (counter != (long)nthreads * (ROUNDS + 2 * (ROUNDS / 50)) + extra)
		FAIL("counter %ld, want %ld: mutual exclusion broken", counter,
		     (long)nthreads * (ROUNDS + 2 * (ROUNDS / 50)) + extra);
	if (inner_counter != (long)nthreads * ((ROUNDS + 6) / 7) ||
	    pshared_counter != inner_counter)
		FAIL("nested counters %ld/%ld, want %ld", inner_counter,
		     pshared_counter, (long)nthreads * ((ROUNDS + 6) / 7));
	if (queue != 0)
		FAIL("queue %d after the consumers, want 0", queue);
	if (handled == 0 || handled_wrong != 0)
		FAIL("signals: %ld handled, %ld on the wrong thread",
		     (long)handled, (long)handled_wrong);
	printf("away %ld\n", (long)away);
	return 0;
}
