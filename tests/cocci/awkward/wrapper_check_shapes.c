/* SPDX-License-Identifier: MIT */
/* Lock wrappers that check pthread's result in the ways projects write
 * it behind macros of their own: the result tested inside a branch hint
 * in the condition itself, a fatal path through a project function
 * declared noreturn (after a report), a report-only branch through a
 * logging macro, and a wrapper that returns the result after asserting
 * on it.  Each still only locks or unlocks its argument's mutex. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIKELY_NOT(e) __builtin_expect((e) != 0, 0)
#define REPORT(...) fprintf(stderr, __VA_ARGS__)

__attribute__((noreturn)) static void fatal(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	abort();
}

struct account {
	pthread_mutex_t guard;
	long balance;
	long moves;
};

static void account_enter(struct account *a)
{
	int e;

	if (LIKELY_NOT(e = pthread_mutex_lock(&a->guard)))
		fatal("account_enter", e);
}

static void account_leave(struct account *a)
{
	int e = pthread_mutex_unlock(&a->guard);

	if (e) {
		REPORT("account_leave: %d\n", e);
	}
}

struct tally {
	pthread_mutex_t mu;
	long n;
};

static int tally_lock(struct tally *t)
{
	int e;

	assert(t != NULL);
	e = pthread_mutex_lock(&t->mu);
	assert(e == 0);
	return e;
}

static int tally_unlock(struct tally *t)
{
	int e;

	e = pthread_mutex_unlock(&t->mu);
	if (e != 0) {
		REPORT("tally_unlock: %d\n", e);
		exit(3);
	}
	return 0;
}

#define NT 4
#define IT 2000

static struct account acct = {PTHREAD_MUTEX_INITIALIZER, 1000, 0};
static struct tally tal = {PTHREAD_MUTEX_INITIALIZER, 0};

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		account_enter(&acct);
		acct.balance += (i & 1) ? id : -id;
		acct.moves++;
		account_leave(&acct);

		tally_lock(&tal);
		tal.n += id + 1;
		tally_unlock(&tal);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("balance %ld moves %ld tally %ld\n", acct.balance, acct.moves,
	       tal.n);
	return acct.balance == 1000 && acct.moves == NT * IT &&
			       tal.n == (long)IT * (NT * (NT + 1) / 2) ?
		       0 :
		       1;
}
