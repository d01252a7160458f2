/* SPDX-License-Identifier: MIT */
/*
 * Algorithm-specific tests for the rest of LiTL's zoo (liblock/algorithms/):
 * what the shared stress suite cannot see.
 *
 *  - NUMA-aware locks on a pretend multi-node machine (zoo_topo_fake):
 *    the test machines have one node, so without this the cross-node
 *    paths (global lock contended, cohort hand-off to another node,
 *    threads migrating between lock and unlock) would never run;
 *  - the cohort bound: a waiter of another node gets the lock after at
 *    most one batch of node-local hand-overs (ctkttkt, cptltkt, hmcs,
 *    hticket: the locks whose global level is FIFO);
 *  - Anderson with many more threads than slots, partitioned ticket with
 *    many threads and ticket wrap-around over its slots;
 *  - Malthusian culling: with waiters B, C, D queued in that order, the
 *    release culls B and hands over to C; B still gets the lock (for
 *    malthusian_stp, with its admission gate's cap raised to 3).
 *
 * Links liblock statically (libliblock.la) to reach the hidden test hooks.
 * White-box reads: the first word of some locks' state (documented at
 * each use).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stress.h"
#include "zoo_int.h"
#include "zoo_ctkt.h"
#include "zoo_mcs.h"

static const char *const numa_algos[] = {
	"cbomcs",  "cbomcs_stp", "ctkttkt", "cptltkt",
	"hticket", "hmcs",	 "ahmcs",
};
#define N_NUMA (int)(sizeof(numa_algos) / sizeof(numa_algos[0]))

static void init_lock(liblock_lock_t *l, const char *name)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_msg(liblock_init(l, &attr) == 0, "init %s", name);
}

/* Poll @cond for up to 20 s (loaded CI machines are slow). */
#define WAIT_FOR(cond)                                                         \
	do {                                                                   \
		int waited_ = 0;                                               \
		while (!(cond)) {                                              \
			ck_assert_msg(waited_++ < 20000, "timeout: " #cond);   \
			usleep(1000);                                          \
		}                                                              \
	} while (0)

/* ---- counters with lock, trylock and node migration -------------------- */

struct mix_ctx {
	liblock_lock_t lock;
	struct shared_lines data;
	atomic_int inside, overlaps, next_id;
	int iterations, nodes;
};

static void mix_section(struct mix_ctx *c)
{
	/* relaxed: a second thread inside is what we look for */
	if (atomic_fetch_add_explicit(&c->inside, 1, memory_order_relaxed))
		atomic_fetch_add_explicit(&c->overlaps, 1,
					  memory_order_relaxed);
	for (int i = 0; i < TEST_LINES; i++)
		c->data.line[i].value++;
	atomic_fetch_sub_explicit(&c->inside, 1, memory_order_relaxed);
}

static void *mix_worker(void *arg)
{
	struct mix_ctx *c = *(struct mix_ctx **)arg;
	int id = atomic_fetch_add(&c->next_id, 1);

	for (int i = 0; i < c->iterations; i++) {
		/* Migrate between pretend nodes every 50 acquisitions,
		 * sometimes between lock and unlock. */
		if (c->nodes && i % 50 == 0)
			zoo_topo_fake_self((id + i / 50) % c->nodes);
		if (i % 7 == 3 && liblock_trylock(&c->lock) == 0) {
			mix_section(c);
		} else {
			ck_assert_int_eq(liblock_lock(&c->lock), 0);
			if (c->nodes && i % 50 == 49)
				zoo_topo_fake_self((id + 1) % c->nodes);
			mix_section(c);
		}
		ck_assert_int_eq(liblock_unlock(&c->lock), 0);
		if ((i & 31) == 0)
			sched_yield();
	}
	return NULL;
}

static void run_mix(const char *name, int threads, int iterations, int nodes)
{
	struct mix_ctx *c = calloc(1, sizeof(*c));
	struct mix_ctx **args = calloc((size_t)threads, sizeof(*args));

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(args);
	init_lock(&c->lock, name);
	c->iterations = iterations;
	c->nodes = nodes;
	for (int i = 0; i < threads; i++)
		args[i] = c;
	run_threads(threads, mix_worker, args, sizeof(*args));
	ck_assert_int_eq(atomic_load(&c->overlaps), 0);
	for (int i = 0; i < TEST_LINES; i++)
		ck_assert_uint_eq(c->data.line[i].value,
				  (uint64_t)threads * (uint64_t)iterations);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(args);
	free(c);
}

START_TEST(numa_three_pretend_nodes)
{
	zoo_topo_fake(3);
	ck_assert_int_eq(zoo_node_count(), 3);
	run_mix(numa_algos[_i], 6, 400, 3);
}
END_TEST

START_TEST(numa_real_topology_counts)
{
	/* The real machine: node count from libnuma, nodes in range. */
	int n = zoo_node_count();

	ck_assert_int_ge(n, 1);
	for (int i = 0; i < 100; i++) {
		int node = zoo_my_node(n);

		ck_assert(node >= 0 && node < n);
	}
}
END_TEST

/* ---- cohort bound ---------------------------------------------------------
 */

struct bound_ctx {
	liblock_lock_t lock;
	atomic_int stop;
	int seq[8192]; /* pretend node of each acquisition, under the lock */
	int n;
};

static void bound_record(struct bound_ctx *b, int node)
{
	if (b->n < (int)(sizeof(b->seq) / sizeof(b->seq[0])))
		b->seq[b->n++] = node;
}

static void *bound_local(void *arg)
{
	struct bound_ctx *b = arg;

	zoo_topo_fake_self(0);
	for (int i = 0; i < 2000 && !atomic_load(&b->stop); i++) {
		ck_assert_int_eq(liblock_lock(&b->lock), 0);
		bound_record(b, 0);
		ck_assert_int_eq(liblock_unlock(&b->lock), 0);
	}
	return NULL;
}

static void *bound_remote(void *arg)
{
	struct bound_ctx *b = arg;

	zoo_topo_fake_self(1);
	ck_assert_int_eq(liblock_lock(&b->lock), 0);
	bound_record(b, 1);
	atomic_store(&b->stop, 1);
	ck_assert_int_eq(liblock_unlock(&b->lock), 0);
	return NULL;
}

/* A thread of node 0 holds the lock, three more of node 0 queue behind
 * it, then a thread of node 1 queues for the global level: it must get the
 * lock after at most @bound node-local hand-overs.  White-box: the first
 * 8 bytes of the lock state are the global level's arrival word (ctkttkt,
 * hticket: ticket lock next/grant; cptltkt: partitioned ticket request;
 * hmcs: root MCS tail), which changes when the node-1 thread queues there;
 * node-0 threads never touch it while the cohort holds the global level. */
static void cohort_bound(const char *name, int bound)
{
	struct bound_ctx *b = calloc(1, sizeof(*b));
	pthread_t local[3], remote;
	_Atomic uint64_t *arrival;
	uint64_t before;
	int first_remote = -1;

	ck_assert_ptr_nonnull(b);
	zoo_topo_fake(2);
	zoo_topo_fake_self(0);
	init_lock(&b->lock, name);
	arrival = ll_lock_impl(&b->lock);
	ck_assert_int_eq(liblock_lock(&b->lock), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(
			pthread_create(&local[i], NULL, bound_local, b), 0);
	usleep(20000); /* let the local threads queue behind us */
	before = atomic_load(arrival);
	ck_assert_int_eq(pthread_create(&remote, NULL, bound_remote, b), 0);
	WAIT_FOR(atomic_load(arrival) != before);
	ck_assert_int_eq(liblock_unlock(&b->lock), 0);
	ck_assert_int_eq(pthread_join(remote, NULL), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_join(local[i], NULL), 0);
	for (int i = 0; i < b->n && first_remote < 0; i++)
		if (b->seq[i] == 1)
			first_remote = i;
	ck_assert_int_ge(first_remote, 0);
	ck_assert_int_le(first_remote, bound);
	printf("# %s: %d node-local hand-overs before the other node\n", name,
	       first_remote);
	ck_assert_int_eq(liblock_destroy(&b->lock), 0);
	free(b);
}

START_TEST(cohort_bound_fifo_global)
{
	/* Batches: cohort 100 (ZCTKT_BATCH), HMCS threshold 100, hticket's
	 * 128 local tickets. */
	static const struct {
		const char *name;
		int bound;
	} cases[] = {
		{"ctkttkt", ZCTKT_BATCH},
		{"cptltkt", ZCTKT_BATCH},
		{"hmcs", 100},
		{"hticket", 128},
	};

	cohort_bound(cases[_i].name, cases[_i].bound);
}
END_TEST

/* ---- array and partitioned tickets ------------------------------------ */

START_TEST(anderson_more_threads_than_slots)
{
	/* Slots: CPUs rounded up to a power of two, at least 2. */
	run_mix("anderson", 16, 300, 0);
}
END_TEST

START_TEST(partitioned_many_threads)
{
	run_mix("partitioned", 24, 200, 0);
}
END_TEST

struct try_arg {
	liblock_lock_t *lock;
	int rc;
};

static void *try_once(void *arg)
{
	struct try_arg *t = arg;

	t->rc = liblock_trylock(t->lock);
	if (t->rc == 0)
		ck_assert_int_eq(liblock_unlock(t->lock), 0);
	return NULL;
}

/* Tickets wrap around the slots many times; trylock stays exact. */
static void ticket_wrap(const char *name)
{
	liblock_lock_t l;
	struct try_arg t = {&l, -1};
	pthread_t th;

	init_lock(&l, name);
	for (int i = 0; i < 3000; i++) {
		if (i % 2)
			ck_assert_int_eq(liblock_lock(&l), 0);
		else
			ck_assert_int_eq(liblock_trylock(&l), 0);
		if (i % 500 == 0) {
			ck_assert_int_eq(
				pthread_create(&th, NULL, try_once, &t), 0);
			ck_assert_int_eq(pthread_join(th, NULL), 0);
			ck_assert_int_eq(t.rc, EBUSY);
		}
		ck_assert_int_eq(liblock_unlock(&l), 0);
	}
	ck_assert_int_eq(pthread_create(&th, NULL, try_once, &t), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(t.rc, 0);
	ck_assert_int_eq(liblock_destroy(&l), 0);
}

START_TEST(ticket_wraparound)
{
	static const char *const names[] = {"partitioned", "anderson",
					    "ctkttkt", "cptltkt", "hticket"};

	ticket_wrap(names[_i]);
}
END_TEST

/* ---- Malthusian culling ----------------------------------------------- */

struct cull_ctx {
	liblock_lock_t lock;
	int order[3], n;
};

struct cull_arg {
	struct cull_ctx *c;
	int id;
};

static void *cull_waiter(void *arg)
{
	struct cull_arg *a = arg;

	ck_assert_int_eq(liblock_lock(&a->c->lock), 0);
	a->c->order[a->c->n++] = a->id;
	ck_assert_int_eq(liblock_unlock(&a->c->lock), 0);
	return NULL;
}

/* White-box: the first word of the lock state is the MCS tail (struct
 * malth_lock), and queue nodes are struct zmcs_node; waiting threads keep
 * theirs alive. */
START_TEST(malthusian_culls_surplus_waiter)
{
	static const char *const names[] = {"malthusian", "malthusian_stp"};
	struct cull_ctx *c = calloc(1, sizeof(*c));
	struct cull_arg args[3];
	pthread_t th[3];
	_Atomic(struct zmcs_node *) *tail;
	struct zmcs_node *seen, *queued[3];

	ck_assert_ptr_nonnull(c);
	/* malthusian_stp's admission gate would keep C and D out of the
	 * queue (t_gate.c); let all three in to see the culling */
	ll_gate_cap_fake(3);
	init_lock(&c->lock, names[_i]);
	ll_gate_cap_fake(0);
	tail = ll_lock_impl(&c->lock);
	ck_assert_int_eq(liblock_lock(&c->lock), 0);
	seen = atomic_load(tail);
	for (int i = 0; i < 3; i++) { /* queue B, C, D in this order */
		args[i] = (struct cull_arg){c, i};
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, cull_waiter, &args[i]), 0);
		WAIT_FOR(atomic_load(tail) != seen);
		seen = queued[i] = atomic_load(tail);
	}
	/* ... and linked: a waiter between its exchange and its link store
	 * would not be seen as a successor yet. */
	WAIT_FOR(atomic_load(&queued[0]->next) == queued[1]);
	WAIT_FOR(atomic_load(&queued[1]->next) == queued[2]);
	ck_assert_int_eq(liblock_unlock(&c->lock), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_int_eq(c->n, 3); /* the culled waiter got the lock too */
	ck_assert_int_eq(c->order[0], 1); /* B culled, C first */
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

START_TEST(malthusian_progress_under_contention)
{
	static const char *const names[] = {"malthusian", "malthusian_stp"};

	run_mix(names[_i], 8, 400, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("liblock zoo");
	TCase *tc = tcase_create("zoo");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, numa_three_pretend_nodes, 0, N_NUMA);
	tcase_add_test(tc, numa_real_topology_counts);
	tcase_add_loop_test(tc, cohort_bound_fifo_global, 0, 4);
	tcase_add_test(tc, anderson_more_threads_than_slots);
	tcase_add_test(tc, partitioned_many_threads);
	tcase_add_loop_test(tc, ticket_wraparound, 0, 5);
	tcase_add_loop_test(tc, malthusian_culls_surplus_waiter, 0, 2);
	tcase_add_loop_test(tc, malthusian_progress_under_contention, 0, 2);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
