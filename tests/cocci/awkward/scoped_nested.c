/* SPDX-License-Identifier: MIT */
/* SYNCHRONIZED(m) blocks nested: a transfer takes the bank's lock, then
   each account's inside it (lock order bank, then account).  The inner
   blocks are sections of their own; the outer one contains them: each
   is extracted, the outer one's function calls the inner ones'. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define ACCOUNTS 4
#define MOVERS 3
#define MOVES 400

#define SYNCHRONIZED(m) SYNC_AT(m, __LINE__)
#define SYNC_AT(m, l) SYNC_IN(m, l)
#define SYNC_IN(m, l) \
	for (int s_a##l = 0; s_a##l ? (pthread_mutex_unlock(&(m)), 0) \
				    : (pthread_mutex_lock(&(m)), 1); \
	     s_a##l = 1) \
		for (int s_b##l = 0; !s_b##l; s_b##l = 1)

struct account {
	pthread_mutex_t mu;
	long balance;
};

static struct account acct[ACCOUNTS];
static pthread_mutex_t bank = PTHREAD_MUTEX_INITIALIZER;
static long moves;

static void *mover(void *arg)
{
	long seed = (long)arg;
	int i;

	for (i = 0; i < MOVES; i++) {
		int from = (int)((seed + i) % ACCOUNTS);
		int to = (int)((seed * 3 + i * 7 + 1) % ACCOUNTS);
		long amount = (i % 5) + 1;

		if (from == to)
			continue;
		SYNCHRONIZED(bank) {
			moves++;
			SYNCHRONIZED(acct[from].mu)
				acct[from].balance -= amount;
			SYNCHRONIZED(acct[to].mu) {
				acct[to].balance += amount;
			}
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[MOVERS];
	long k, sum = 0;

	for (k = 0; k < ACCOUNTS; k++) {
		pthread_mutex_init(&acct[k].mu, NULL);
		acct[k].balance = 1000;
	}
	for (k = 0; k < MOVERS; k++)
		pthread_create(&th[k], NULL, mover, (void *)k);
	for (k = 0; k < MOVERS; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < ACCOUNTS; k++) {
		sum += acct[k].balance;
		pthread_mutex_destroy(&acct[k].mu);
	}
	printf("sum %ld moves %ld\n", sum, moves);
	return sum == 1000 * ACCOUNTS ? 0 : 1;
}
