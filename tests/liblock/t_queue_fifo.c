/* SPDX-License-Identifier: MIT */
/*
 * FIFO handover of the queue locks (mcs, clh, ticket and their _stp
 * variants), which the shared stress suite cannot see: the main thread
 * holds the lock, waiters arrive one at a time (each given time to
 * enqueue), and on release they must get the lock in arrival order.
 *
 * The test cannot observe "enqueued" through the public API, so it waits
 * ARRIVAL_GAP_MS after each waiter announces itself.  On a heavily loaded
 * machine a waiter may still be descheduled before it enqueues; the
 * scenario is then retried (up to ATTEMPTS).  A lock that is not FIFO
 * fails every attempt: with WAITERS = 5 a random order matches 1 time in
 * 120.  mcstp is left out on purpose: with more spinning waiters than
 * CPUs it skips the preempted ones, which re-enqueue (t_mcstp.c).
 *
 * The _stp variants are FIFO among the waiters their admission gate lets
 * into the queue (liblock/ll_wait.h; at most the CPUs minus one, so one
 * on a 2-CPU machine); the gate itself is not FIFO (t_gate.c).  The
 * test raises their cap to WAITERS (a hidden hook: this test links
 * liblock statically) so that the queue's own order is what it sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ll_int.h"
#include "stress.h"

#define WAITERS 5
#define ARRIVAL_GAP_MS 100
#define ATTEMPTS 3

static const char *const fifo_algos[] = {
	"mcs", "mcs_stp", "clh", "clh_stp", "ticket", "ticket_stp",
};

struct fifo_ctx {
	liblock_lock_t lock;
	atomic_int arrived[WAITERS];
	int order[WAITERS]; /* written under the lock */
	int served;
};

struct fifo_arg {
	struct fifo_ctx *f;
	int index;
};

static void *fifo_waiter(void *arg)
{
	struct fifo_arg *a = arg;
	struct fifo_ctx *f = a->f;

	atomic_store(&f->arrived[a->index], 1);
	ck_assert_int_eq(liblock_lock(&f->lock), 0);
	f->order[f->served++] = a->index;
	ck_assert_int_eq(liblock_unlock(&f->lock), 0);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* One scenario; returns 1 if the waiters were served in arrival order. */
static int fifo_once(const char *name)
{
	struct fifo_ctx *f = calloc(1, sizeof(*f));
	struct fifo_arg args[WAITERS];
	pthread_t t[WAITERS];
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	int in_order = 1;

	ck_assert_ptr_nonnull(f);
	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_int_eq(liblock_init(&f->lock, &attr), 0);
	ck_assert_int_eq(liblock_lock(&f->lock), 0);
	for (int i = 0; i < WAITERS; i++) {
		args[i] = (struct fifo_arg){f, i};
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, fifo_waiter, &args[i]), 0);
		while (!atomic_load(&f->arrived[i]))
			sleep_ms(1);
		sleep_ms(ARRIVAL_GAP_MS); /* let it enqueue */
	}
	ck_assert_int_eq(liblock_unlock(&f->lock), 0);
	for (int i = 0; i < WAITERS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(f->served, WAITERS);
	for (int i = 0; i < WAITERS; i++)
		if (f->order[i] != i)
			in_order = 0;
	if (!in_order) {
		fprintf(stderr, "# %s served", name);
		for (int i = 0; i < WAITERS; i++)
			fprintf(stderr, " %d", f->order[i]);
		fprintf(stderr, "\n");
	}
	ck_assert_int_eq(liblock_destroy(&f->lock), 0);
	free(f);
	return in_order;
}

START_TEST(fifo_handover)
{
	const char *name = fifo_algos[_i];
	int attempt;

	ll_gate_cap_fake(WAITERS);
	for (attempt = 0; attempt < ATTEMPTS; attempt++)
		if (fifo_once(name))
			return;
	ck_abort_msg("%s: waiters not served in arrival order (%d attempts)",
		     name, ATTEMPTS);
}
END_TEST

/* A thread that exits holding a lock (pthread_exit() inside a section,
 * lbzip2's error path, which another thread answers by ending the
 * process): the lock stays held, as a POSIX mutex does, and a later
 * waiter waits.  A queue lock's node must outlive its thread then: the
 * waiter links itself to it (a use after free that ASan reports). */
static liblock_lock_t exit_lock;
static atomic_int exit_waiter_got;

static void *take_and_exit(void *arg)
{
	(void)arg;
	if (liblock_lock(&exit_lock) != 0)
		_exit(5);
	if (liblock_held_locks_ != 1)
		_exit(6);
	pthread_exit(NULL);
}

static void *wait_for_it(void *arg)
{
	(void)arg;
	if (liblock_lock(&exit_lock) == 0)
		atomic_store(&exit_waiter_got, 1);
	return NULL;
}

static const char *lock_algo(int i)
{
	const char *const *all = liblock_algorithms();
	liblock_algorithm_info_t info;

	for (int n = 0; all[n]; n++)
		if (liblock_algorithm_info(all[n], &info) == 0 &&
		    (info.caps & LIBLOCK_CAP_LOCK) &&
		    !(info.caps & LIBLOCK_CAP_SERVER) && i-- == 0)
			return all[n];
	return NULL;
}

START_TEST(exit_holding)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	const char *name;
	int status;
	pid_t pid;

	for (int i = 0; (name = lock_algo(i)) != NULL; i++) {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			pthread_t a, b;

			alarm(20);
			attr.algorithm = name;
			attr.flags = LIBLOCK_ATTR_FIXED;
			if (liblock_init(&exit_lock, &attr) != 0 ||
			    pthread_create(&a, NULL, take_and_exit, NULL) ||
			    pthread_join(a, NULL) ||
			    pthread_create(&b, NULL, wait_for_it, NULL))
				_exit(4);
			usleep(100000);
			_exit(liblock_trylock(&exit_lock) != EBUSY ? 3
			      : atomic_load(&exit_waiter_got)	   ? 2
								   : 0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "%s: a thread exited holding it, then: status "
			      "%#x (2: a waiter got it, 3: a trylock did, "
			      "5/6: the holder's lock failed or was not "
			      "counted)",
			      name, status);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("queue locks: FIFO handover");
	TCase *tc = tcase_create("fifo");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, fifo_handover, 0,
			    sizeof(fifo_algos) / sizeof(fifo_algos[0]));
	tcase_add_test(tc, exit_holding);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
