/* SPDX-License-Identifier: MIT */
/*
 * Behaviour corpus: three structures each declare a mutex named 'lock'
 * (struct account, struct ledger, and the anonymous typedef'd counter_t
 * nested in the ledger), two of them a condition variable named 'cv'.
 * rcl-refactor keys each by its structure (account.lock, ledger.lock,
 * counter_t.lock, account.cv, ledger.cv), reached through parameters, a
 * global, a member chain and an array of structures.
 */
#include <pthread.h>
#include <stdio.h>

#define NACCOUNTS 4
#define NTHREADS 4
#define ROUNDS 2000

typedef struct {
	pthread_mutex_t lock;
	long n;
} counter_t;

struct account {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	long balance;
};

struct ledger {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	counter_t entries;
	long total;
	int done;
};

static struct account accounts[NACCOUNTS];
static struct ledger book;

static void deposit(struct account *a, long v)
{
	pthread_mutex_lock(&a->lock);
	a->balance += v;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->lock);
}

static void withdraw(struct account *a, long v)
{
	pthread_mutex_lock(&a->lock);
	while (a->balance < v)
		pthread_cond_wait(&a->cv, &a->lock);
	a->balance -= v;
	pthread_mutex_unlock(&a->lock);
}

static void record(struct ledger *l, long v)
{
	pthread_mutex_lock(&l->lock);
	l->total += v;
	pthread_mutex_unlock(&l->lock);
	pthread_mutex_lock(&l->entries.lock);
	l->entries.n++;
	pthread_mutex_unlock(&l->entries.lock);
}

static void *worker(void *arg)
{
	long t = (long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		deposit(&accounts[(t + r) % NACCOUNTS], 1);
		record(&book, 1);
	}
	pthread_mutex_lock(&book.lock);
	book.done++;
	pthread_cond_broadcast(&book.cv);
	pthread_mutex_unlock(&book.lock);
	return NULL;
}

static void *consumer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NTHREADS * ROUNDS / NACCOUNTS; i++)
		withdraw(&accounts[0], 1);
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS], cons;
	long t, sum = 0;
	int i;

	for (i = 0; i < NACCOUNTS; i++) {
		pthread_mutex_init(&accounts[i].lock, NULL);
		pthread_cond_init(&accounts[i].cv, NULL);
	}
	pthread_mutex_init(&book.lock, NULL);
	pthread_cond_init(&book.cv, NULL);
	pthread_mutex_init(&book.entries.lock, NULL);
	pthread_create(&cons, NULL, consumer, NULL);
	for (t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	pthread_mutex_lock(&book.lock);
	while (book.done < NTHREADS)
		pthread_cond_wait(&book.cv, &book.lock);
	pthread_mutex_unlock(&book.lock);
	for (t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	pthread_join(cons, NULL);
	for (i = 0; i < NACCOUNTS; i++) {
		printf("account %d: %ld\n", i, accounts[i].balance);
		sum += accounts[i].balance;
	}
	printf("ledger: %ld in %ld entries, %ld left\n", book.total,
	       book.entries.n, sum);
	return sum == (long)NTHREADS * ROUNDS * (NACCOUNTS - 1) / NACCOUNTS &&
	       book.total == (long)NTHREADS * ROUNDS &&
	       book.entries.n == book.total ? 0 : 1;
}
