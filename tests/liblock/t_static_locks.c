/* SPDX-License-Identifier: MIT */
/*
 * Locks that are never destroyed leak nothing while they stay reachable:
 * for every algorithm, a lock in static storage is initialised, used by
 * short-lived threads (whose per-(lock, thread) nodes are freed at their
 * exit) and by the main thread, and never destroyed.  The sections must
 * add up; in the ASan build LeakSanitizer checks at exit that all the
 * algorithms' state (lock, per-NUMA-node state, queue nodes, combining
 * nodes, node pairs of exited threads) is still reachable from the
 * static locks or freed.  Dropping a lock without liblock_destroy() is
 * the program's leak (liblock.h); this test shows that keeping one is
 * not.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "liblock.h"
#include "rcl.h"

#define MAX_ALGOS 64
#define NTHREADS 3
#define ITERS 2000

static liblock_lock_t locks[MAX_ALGOS];
static long counts[MAX_ALGOS];

static void *cs(void *ctx)
{
	(*(long *)ctx)++;
	return ctx;
}

struct job {
	liblock_lock_t *lock;
	long *count;
};

static void *worker(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < ITERS; i++)
		if (liblock_exec(j->lock, cs, j->count) != j->count)
			abort();
	return NULL;
}

int main(void)
{
	const char *const *algos = liblock_algorithms();
	int failed = 0, n;

	alarm(120); /* a hung lock fails the test instead of the suite */
	for (n = 0; algos[n] && n < MAX_ALGOS; n++) {
		liblock_attr_t a = LIBLOCK_ATTR_INITIALIZER;
		struct job j = {&locks[n], &counts[n]};
		pthread_t t[NTHREADS];
		int rc;

		a.algorithm = algos[n];
		a.flags = LIBLOCK_ATTR_FIXED;
		if ((rc = liblock_init(&locks[n], &a)) != 0) {
			fprintf(stderr, "t_static_locks: init %s: %d\n",
				algos[n], rc);
			return 1;
		}
		for (int i = 0; i < NTHREADS; i++)
			if (pthread_create(&t[i], NULL, worker, &j) != 0) {
				fprintf(stderr, "t_static_locks: thread\n");
				return 1;
			}
		worker(&j);
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(t[i], NULL);
		if (counts[n] != (long)(NTHREADS + 1) * ITERS) {
			fprintf(stderr,
				"t_static_locks: %s: %ld sections, "
				"expected %ld\n",
				algos[n], counts[n],
				(long)(NTHREADS + 1) * ITERS);
			failed = 1;
		}
	}
	printf("# %d algorithms, locks kept to exit\n", n);
	/* the rcl lock started the default server: stop it (its lock stays) */
	if (rcl_shutdown() != 0) {
		fprintf(stderr, "t_static_locks: rcl_shutdown failed\n");
		failed = 1;
	}
	return failed;
}
