/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Every pthread call wrapped in a checking macro at the call site, as
   test suites and storage code write them: VERIFY0(call) aborts when the
   call gives non-zero, PTHREAD_CHECK(call, what) reports what failed.
   On a plain mutex the lock and unlock give 0: the statements are the
   calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERIFY0(expr) do {						\
	int verify_rc_ = (expr);					\
	if (verify_rc_ != 0) {						\
		fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__,	\
			#expr, verify_rc_);				\
		abort();						\
	}								\
} while (0)

#define PTHREAD_CHECK(call, what) do {					\
	if ((call) != 0) {						\
		perror(what);						\
		exit(2);						\
	}								\
} while (0)

struct account {
	pthread_mutex_t lock;
	long balance;
	long ops;
};

static struct account acct[4] = {
	{ PTHREAD_MUTEX_INITIALIZER, 1000, 0 },
	{ PTHREAD_MUTEX_INITIALIZER, 1000, 0 },
	{ PTHREAD_MUTEX_INITIALIZER, 1000, 0 },
	{ PTHREAD_MUTEX_INITIALIZER, 1000, 0 },
};
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static long refused;

static int withdraw(struct account *a, long amount)
{
	VERIFY0(pthread_mutex_lock(&a->lock));
	if (a->balance < amount) {
		VERIFY0(pthread_mutex_unlock(&a->lock));
		return -1;
	}
	a->balance -= amount;
	a->ops++;
	VERIFY0(pthread_mutex_unlock(&a->lock));
	return 0;
}

static void deposit(struct account *a, long amount)
{
	PTHREAD_CHECK(pthread_mutex_lock(&a->lock), "deposit: lock");
	a->balance += amount;
	a->ops++;
	PTHREAD_CHECK(pthread_mutex_unlock(&a->lock), "deposit: unlock");
}

static void *teller(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < 20000; i++) {
		struct account *from = &acct[(i + id) % 4];
		struct account *to = &acct[(i + id + 1) % 4];

		if (withdraw(from, 1 + i % 7) == 0) {
			deposit(to, 1 + i % 7);
		} else {
			VERIFY0(pthread_mutex_lock(&log_lock));
			refused++;
			VERIFY0(pthread_mutex_unlock(&log_lock));
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long i, total = 0, ops = 0;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, teller, (void *)i);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 4; i++) {
		total += acct[i].balance;
		ops += acct[i].ops;
	}
	printf("total %ld, ops+2*refused %ld\n", total, ops + 2 * refused);
	return 0;
}
