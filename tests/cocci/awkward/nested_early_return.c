/* SPDX-License-Identifier: MIT */
/* A withdrawal checks the balance under the account lock, then takes the
   ledger lock; when the ledger is full it gives up from inside the
   ledger's section (both unlocks, then return).  Such a nested section
   is not extracted: the account section around it is held, and the
   program still behaves. */
/* expect: held nested section of ledger_lock */
#include <pthread.h>
#include <stdio.h>

#define THREADS 6
#define TRIES 2000
#define LEDGER_MAX 5000

static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = 100000;
static long ledger[LEDGER_MAX];
static int ledger_len;

static int withdraw(long amount)
{
	pthread_mutex_lock(&account_lock);
	if (balance < amount) {
		pthread_mutex_unlock(&account_lock);
		return -1;
	}
	pthread_mutex_lock(&ledger_lock);
	if (ledger_len == LEDGER_MAX) {
		pthread_mutex_unlock(&ledger_lock);
		pthread_mutex_unlock(&account_lock);
		return -2;
	}
	ledger[ledger_len++] = amount;
	pthread_mutex_unlock(&ledger_lock);
	balance -= amount;
	pthread_mutex_unlock(&account_lock);
	return 0;
}

static void *teller(void *arg)
{
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < TRIES; i++)
		if (withdraw(3) == 0)
			ok++;
	return (void *)ok;
}

int main(void)
{
	pthread_t t[THREADS];
	long done = 0, sum = 0;
	void *r;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, teller, NULL);
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], &r);
		done += (long)r;
	}
	pthread_mutex_lock(&ledger_lock);
	for (i = 0; i < ledger_len; i++)
		sum += ledger[i];
	pthread_mutex_unlock(&ledger_lock);
	printf("done %ld ledger %d balance %ld\n", done, ledger_len, balance);
	return done == LEDGER_MAX && sum == 3 * done &&
			       balance == 100000 - 3 * done
		       ? 0
		       : 1;
}
