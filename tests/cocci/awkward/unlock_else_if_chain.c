/* SPDX-License-Identifier: MIT */
/* An else-if chain after the lock, each branch releasing it: one
   returns right after its unlock, one keeps a value declared in the
   branch for the code after its unlock, one ends with the unlock.
   The counters each thread keeps are checked against the shared ones. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 3
#define IT 9000

struct account {
	pthread_mutex_t lock;
	long balance;
	long denied, small, large;
};

static struct account acct = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0 };

struct tally {
	long denied, small, large, fees;
	char note[16];
};

static int withdraw(struct tally *t, long amount)
{
	long fee = 0;

	pthread_mutex_lock(&acct.lock);
	acct.balance += 7;
	if (amount > acct.balance) {
		acct.denied++;
		pthread_mutex_unlock(&acct.lock);
		t->denied++;
		return -1;
	} else if (amount < 5) {
		long before = acct.balance;

		acct.balance -= amount;
		acct.small++;
		pthread_mutex_unlock(&acct.lock);
		t->small++;
		if (before < amount)
			strcpy(t->note, "impossible");
	} else {
		fee = 1;
		acct.balance -= amount + fee;
		acct.large++;
		pthread_mutex_unlock(&acct.lock);
	}
	if (fee) {
		t->large++;
		t->fees += fee;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct tally *t = arg;
	long i;

	for (i = 0; i < IT; i++)
		withdraw(t, (i * 13) % 11);
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	struct tally t[NT];
	long d = 0, s = 0, l = 0, fees = 0;
	int i;

	memset(t, 0, sizeof(t));
	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, &t[i]);
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		d += t[i].denied;
		s += t[i].small;
		l += t[i].large;
		fees += t[i].fees;
		if (t[i].note[0])
			printf("note: %s\n", t[i].note);
	}
	printf("calls %ld\n", d + s + l);
	printf("denied %s small %s large %s fees %s\n",
	       d == acct.denied ? "ok" : "BAD", s == acct.small ? "ok" : "BAD",
	       l == acct.large ? "ok" : "BAD", fees == l ? "ok" : "BAD");
	printf("balance %s\n", acct.balance >= 0 ? "ok" : "NEGATIVE");
	return 0;
}
