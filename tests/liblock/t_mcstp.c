/* SPDX-License-Identifier: MIT */
/*
 * MCS-TP protocol steps that the shared stress suite cannot see: a waiter
 * whose patience expired times out (TIMED_OUT) and stays queued, reclaims
 * its own position on the next attempt (the thesis's last_lock fix: no
 * second insertion), is marked FAILED by an unlock that skips it, and
 * then acquires by enqueueing afresh; an unlock hands the lock to a
 * running waiter behind a stale one; the treadmill range is marked
 * FAILED up to the last node (our fix to Alg. 5); and a waiter that
 * learns it was marked FAILED only through its reclaim attempt is
 * ordered after that mark before its thread exits and frees the node
 * (the race the preload stress test hit; only a TSan build, where this
 * test then fails, can see a missing happens-before).
 *
 * White-box: this file compiles liblock/algorithms/mcstp.c itself (its
 * functions are static) and links the liblock convenience library for
 * ll_tnode & co.  MCSTP_MAX_SCAN is lowered to 2 to reach the treadmill
 * path.
 */
#define _GNU_SOURCE
#define MCSTP_MAX_SCAN 2
#define ll_mcstp_ops t_mcstp_ops /* the library has its own */
#include "algorithms/mcstp.c"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static struct mcstp_lock *new_lock(void)
{
	void *impl = NULL;

	ck_assert_int_eq(mcstp_init(&impl, NULL), 0);
	return impl;
}

static struct mcstp_node *new_node(void)
{
	struct mcstp_node *n = ll_zalloc(sizeof(*n));

	ck_assert_ptr_nonnull(n);
	return n;
}

static int status(struct mcstp_node *n)
{
	return atomic_load(&n->status);
}

START_TEST(timeout_reclaim_then_acquire)
{
	struct mcstp_lock *l = new_lock();
	struct mcstp_node *b = new_node(), *a;
	int64_t t0;

	ck_assert_int_eq(mcstp_lock(l), 0);
	a = l->holder;
	/* patience expires: TIMED_OUT, still queued behind the holder */
	t0 = mcstp_now();
	ck_assert(!mcstp_attempt(l, b));
	ck_assert(mcstp_now() - t0 >= MCSTP_PATIENCE);
	ck_assert_int_eq(status(b), TP_TIMED_OUT);
	ck_assert_ptr_eq(b->last_lock, l);
	ck_assert_ptr_eq(atomic_load(&l->tail), b);
	ck_assert_ptr_eq(atomic_load(&a->next), b);
	/* next attempt reclaims the same position: no second insertion */
	ck_assert(!mcstp_attempt(l, b));
	ck_assert_int_eq(status(b), TP_TIMED_OUT);
	ck_assert_ptr_eq(atomic_load(&l->tail), b);
	ck_assert_ptr_null(atomic_load(&b->next));
	/* unlock skips the timed-out waiter, marks it, empties the queue */
	ck_assert_int_eq(mcstp_unlock(l), 0);
	ck_assert_int_eq(status(b), TP_FAILED);
	ck_assert_int_eq(status(a), TP_FAILED);
	ck_assert_ptr_null(atomic_load(&l->tail));
	/* the FAILED waiter enqueues afresh and gets the free lock */
	ck_assert(mcstp_attempt(l, b));
	ck_assert_ptr_eq(atomic_load(&l->tail), b);
	mcstp_acquired(l, b);
	ck_assert_int_eq(mcstp_trylock(l), EBUSY); /* one-shot, no enqueue */
	ck_assert_ptr_eq(atomic_load(&l->tail), b);
	ck_assert_int_eq(mcstp_destroy(l), EBUSY);
	ck_assert_int_eq(mcstp_unlock(l), 0);
	ck_assert_int_eq(mcstp_destroy(l), 0);
	ll_free(b);
}
END_TEST

struct runner {
	struct mcstp_lock *l;
	atomic_int acquired;
};

static void *running_waiter(void *arg)
{
	struct runner *r = arg;

	ck_assert_int_eq(mcstp_lock(r->l), 0);
	atomic_store(&r->acquired, 1);
	ck_assert_int_eq(mcstp_unlock(r->l), 0);
	return NULL;
}

START_TEST(handover_skips_stale_waiter)
{
	struct runner r = {new_lock(), 0};
	struct mcstp_node *b = new_node();
	pthread_t t;

	ck_assert_int_eq(mcstp_lock(r.l), 0);
	ck_assert(!mcstp_attempt(r.l, b)); /* b: queued, then not running */
	ck_assert_int_eq(pthread_create(&t, NULL, running_waiter, &r), 0);
	while (atomic_load(&b->next) == NULL) /* the runner queued behind b */
		usleep(100);
	usleep(2000); /* b's timestamp is now far older than UPDATE_DELAY */
	ck_assert_int_eq(mcstp_unlock(r.l), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(atomic_load(&r.acquired), 1);
	ck_assert_int_eq(status(b), TP_FAILED); /* skipped, never granted */
	ck_assert_int_eq(mcstp_destroy(r.l), 0);
	ll_free(b);
}
END_TEST

START_TEST(treadmill_range_marked)
{
	struct mcstp_lock *l = new_lock();
	struct mcstp_node *w[3];

	ck_assert_int_eq(mcstp_lock(l), 0);
	for (int i = 0; i < 3; i++) {
		w[i] = new_node();
		ck_assert(!mcstp_attempt(l, w[i])); /* three stale waiters */
	}
	ck_assert_ptr_eq(atomic_load(&l->tail), w[2]);
	/* MCSTP_MAX_SCAN = 2: the holder's node is marked while scanning,
	 * w[0..2] are left for the range at the end.  Every one must be
	 * FAILED, or its owner would reclaim a dead position forever. */
	ck_assert_int_eq(mcstp_unlock(l), 0);
	ck_assert_ptr_null(atomic_load(&l->tail));
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(status(w[i]), TP_FAILED);
		ll_free(w[i]);
	}
	ck_assert_int_eq(mcstp_destroy(l), 0);
}
END_TEST

struct leaver {
	struct mcstp_lock *l;
	struct mcstp_node *node;
	atomic_int state; /* 1: node published */
	bool timed_out, acquired;
	int unlocked;
};

/* A thread whose waiter is marked FAILED by an unlock that then touches
 * nothing the thread later acquires (the mark after the queue empties).
 * The thread sees the mark only by a relaxed poll, so its reclaim attempt
 * is the first acquire: it must pair with the mark's release, or the
 * node's free at thread exit (tnode.c's destructor) races with the mark.
 * No ck_assert here or in the holder until the join: Check's assertions
 * take a mutex, which would order the two threads and hide the race. */
static void *leaving_waiter(void *arg)
{
	struct leaver *lv = arg;
	struct mcstp_node *me = ll_tnode(&lv->l->key, sizeof(*me));

	lv->node = me;
	atomic_store_explicit(&lv->state, 1, memory_order_release);
	if (!me)
		return NULL;
	lv->timed_out = !mcstp_attempt(lv->l, me); /* behind the holder */
	while (atomic_load_explicit(&me->status, memory_order_relaxed) !=
	       TP_FAILED)
		usleep(100);
	lv->acquired = mcstp_attempt(lv->l, me); /* afresh: empty queue */
	if (lv->acquired) {
		mcstp_acquired(lv->l, me);
		lv->unlocked = mcstp_unlock(lv->l);
	}
	return NULL; /* exit: the node is freed here */
}

START_TEST(failed_mark_before_node_free)
{
	struct leaver lv = {new_lock(), NULL, 0, false, false, -1};
	pthread_t t;
	int rc;

	ck_assert_int_eq(mcstp_lock(lv.l), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, leaving_waiter, &lv), 0);
	while (!atomic_load_explicit(&lv.state, memory_order_acquire))
		usleep(100);
	ck_assert_ptr_nonnull(lv.node);
	/* relaxed on purpose: no happens-before from the waiter to us */
	while (atomic_load_explicit(&lv.node->status, memory_order_relaxed) !=
	       TP_TIMED_OUT)
		usleep(100);
	/* skips the timed-out waiter, empties the queue, then marks it */
	rc = mcstp_unlock(lv.l);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(rc, 0);
	ck_assert(lv.timed_out);
	ck_assert(lv.acquired);
	ck_assert_int_eq(lv.unlocked, 0);
	ck_assert_ptr_null(atomic_load(&lv.l->tail));
	ck_assert_int_eq(mcstp_destroy(lv.l), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mcstp protocol");
	TCase *tc = tcase_create("mcstp");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, timeout_reclaim_then_acquire);
	tcase_add_test(tc, handover_skips_stale_waiter);
	tcase_add_test(tc, treadmill_range_marked);
	tcase_add_test(tc, failed_mark_before_node_free);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
