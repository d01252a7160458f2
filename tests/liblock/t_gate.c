/* SPDX-License-Identifier: MIT */
/*
 * The admission gate of the parking FIFO locks (liblock/ll_wait.h),
 * observed through its counters, not through timing:
 *
 *  - every *_stp algorithm has a gate;
 *  - with the cap forced to 1 and the main thread holding the lock, of
 *    four arriving threads one is admitted (queued, spinning) and three go
 *    passive (parked outside the queue); the queue never holds more than
 *    the cap;
 *  - on release the lock goes to the admitted waiter: its section still
 *    sees three passive threads and no wake-up issued (a parked thread is
 *    not handed the lock while a spinning one is present);
 *  - the passive threads are woken and all get the lock; the gate ends
 *    empty;
 *  - many more threads than CPUs (and than the cap): every section runs,
 *    mutual exclusion holds, the gate ends empty.
 *
 * Links liblock statically (libliblock.la) for the hidden cap hook and
 * the ops table's gate accessor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stress.h"
#include "ll_int.h"
#include "ll_wait.h"

static const char *const gated[] = {
	"mcs_stp", "clh_stp", "ticket_stp", "cbomcs_stp", "malthusian_stp",
};
#define N_GATED (int)(sizeof(gated) / sizeof(gated[0]))

/* Poll @cond for up to 20 s (loaded CI machines are slow). */
#define WAIT_FOR(cond)                                                         \
	do {                                                                   \
		int waited_ = 0;                                               \
		while (!(cond)) {                                              \
			ck_assert_msg(waited_++ < 20000, "timeout: " #cond);   \
			usleep(1000);                                          \
		}                                                              \
	} while (0)

static struct ll_gate *gate_of(liblock_lock_t *l)
{
	const struct ll_ops *ops = ll_lock_ops(l);

	ck_assert_ptr_nonnull(ops->gate);
	return ops->gate(ll_lock_impl(l));
}

static uint64_t word(struct ll_gate *g)
{
	return atomic_load(&g->word);
}

static void init_lock(liblock_lock_t *l, const char *name)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;

	attr.algorithm = name;
	attr.flags = LIBLOCK_ATTR_FIXED;
	ck_assert_msg(liblock_init(l, &attr) == 0, "init %s", name);
}

START_TEST(every_stp_has_a_gate)
{
	const char *const *names = liblock_algorithms();
	int found = 0;

	for (int i = 0; names[i]; i++) {
		const struct ll_ops *ops = ll_ops_find(names[i]);
		size_t n = strlen(names[i]);

		ck_assert_ptr_nonnull(ops);
		if (n > 4 && strcmp(names[i] + n - 4, "_stp") == 0) {
			ck_assert_msg(ops->gate != NULL, "%s has no gate",
				      names[i]);
			found++;
		}
	}
	ck_assert_int_eq(found, N_GATED);
}
END_TEST

#define ARRIVALS 4

struct order_ctx {
	liblock_lock_t lock;
	struct ll_gate *gate;
	int n;				/* sections run, under the lock */
	unsigned int passive[ARRIVALS]; /* passive count seen by section i */
	uint32_t seq[ARRIVALS];		/* wake-ups issued before section i */
};

static void *order_thread(void *arg)
{
	struct order_ctx *c = arg;

	ck_assert_int_eq(liblock_lock(&c->lock), 0);
	c->passive[c->n] = LL_GATE_PASSIVES(word(c->gate));
	c->seq[c->n] = atomic_load(&c->gate->seq);
	c->n++;
	ck_assert_int_eq(liblock_unlock(&c->lock), 0);
	return NULL;
}

START_TEST(sleepers_wait_outside_the_queue)
{
	struct order_ctx *c = calloc(1, sizeof(*c));
	pthread_t th[ARRIVALS];
	uint32_t seq0;

	ck_assert_ptr_nonnull(c);
	ll_gate_cap_fake(1);
	init_lock(&c->lock, gated[_i]);
	ll_gate_cap_fake(0);
	c->gate = gate_of(&c->lock);
	ck_assert_uint_eq(c->gate->cap, 1);
	ck_assert_int_eq(liblock_lock(&c->lock), 0);
	for (int i = 0; i < ARRIVALS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, order_thread, c),
				 0);
	/* one admitted, the rest passive; never more admitted than the cap */
	for (int waited = 0;; waited++) {
		uint64_t w = word(c->gate);

		ck_assert_uint_le(LL_GATE_WAITERS(w), 1);
		if (LL_GATE_WAITERS(w) == 1 &&
		    LL_GATE_PASSIVES(w) == ARRIVALS - 1)
			break;
		ck_assert_msg(waited < 20000, "%s: gate word %#llx", gated[_i],
			      (unsigned long long)w);
		usleep(1000);
	}
	seq0 = atomic_load(&c->gate->seq);
	ck_assert_int_eq(liblock_unlock(&c->lock), 0);
	for (int i = 0; i < ARRIVALS; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_int_eq(c->n, ARRIVALS);
	/* the lock went to the spinning waiter, not to a sleeper: nobody
	 * was woken, nobody had left the passive set */
	ck_assert_uint_eq(c->passive[0], ARRIVALS - 1);
	ck_assert_uint_eq(c->seq[0], seq0);
	/* the sleepers were woken (each wake-up bumps seq) */
	ck_assert_uint_gt(atomic_load(&c->gate->seq), seq0);
	ck_assert_uint_eq(LL_GATE_WAITERS(word(c->gate)), 0);
	ck_assert_uint_eq(LL_GATE_PASSIVES(word(c->gate)), 0);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

#define CROWD 16
#define CROWD_ITERS 3000

struct crowd_ctx {
	liblock_lock_t lock;
	struct shared_lines data;
	atomic_int inside, overlaps;
};

static void *crowd_thread(void *arg)
{
	struct crowd_ctx *c = arg;

	for (int i = 0; i < CROWD_ITERS; i++) {
		ck_assert_int_eq(liblock_lock(&c->lock), 0);
		/* relaxed: a second thread inside is what we look for */
		if (atomic_fetch_add_explicit(&c->inside, 1,
					      memory_order_relaxed))
			atomic_fetch_add_explicit(&c->overlaps, 1,
						  memory_order_relaxed);
		for (int k = 0; k < TEST_LINES; k++)
			c->data.line[k].value++;
		atomic_fetch_sub_explicit(&c->inside, 1, memory_order_relaxed);
		ck_assert_int_eq(liblock_unlock(&c->lock), 0);
	}
	return NULL;
}

START_TEST(crowd_more_threads_than_cpus)
{
	struct crowd_ctx *c = calloc(1, sizeof(*c));
	pthread_t th[CROWD];
	struct ll_gate *g;

	ck_assert_ptr_nonnull(c);
	ll_gate_cap_fake(1);
	init_lock(&c->lock, gated[_i]);
	ll_gate_cap_fake(0);
	g = gate_of(&c->lock);
	for (int i = 0; i < CROWD; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, crowd_thread, c),
				 0);
	for (int i = 0; i < CROWD; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_int_eq(atomic_load(&c->overlaps), 0);
	for (int k = 0; k < TEST_LINES; k++)
		ck_assert_uint_eq(c->data.line[k].value,
				  (uint64_t)CROWD * CROWD_ITERS);
	ck_assert_uint_eq(LL_GATE_WAITERS(word(g)), 0);
	ck_assert_uint_eq(LL_GATE_PASSIVES(word(g)), 0);
	ck_assert_int_eq(liblock_destroy(&c->lock), 0);
	free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("liblock gate");
	TCase *tc = tcase_create("gate");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_stp_has_a_gate);
	tcase_add_loop_test(tc, sleepers_wait_outside_the_queue, 0, N_GATED);
	tcase_add_loop_test(tc, crowd_more_threads_than_cpus, 0, N_GATED);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
