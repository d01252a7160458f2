/* SPDX-License-Identifier: MIT */
/* Two accounts moved between hand over hand: transfer() takes the first
   lock, then the second, releases the first and finishes under the
   second (held sections, both locks).  Deposits and audits take each lock
   alone in ordinary sections (delegated). */
/* expect: held nested */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 6
#define ROUNDS 3000

static pthread_mutex_t a_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b_lock = PTHREAD_MUTEX_INITIALIZER;
static long a_balance = 1000000, b_balance;
static long a_ops, b_ops, in_flight_seen;

static void transfer(long amount)
{
	pthread_mutex_lock(&a_lock);
	a_balance -= amount;
	a_ops++;
	pthread_mutex_lock(&b_lock);
	pthread_mutex_unlock(&a_lock);
	b_balance += amount;
	b_ops++;
	pthread_mutex_unlock(&b_lock);
}

static void deposit_a(long amount)
{
	pthread_mutex_lock(&a_lock);
	a_balance += amount;
	a_ops++;
	pthread_mutex_unlock(&a_lock);
}

static long read_b(void)
{
	long v;

	pthread_mutex_lock(&b_lock);
	v = b_balance;
	b_ops++;
	pthread_mutex_unlock(&b_lock);
	return v;
}

static void *worker(void *arg)
{
	long id = (long)arg, i, last = 0;

	for (i = 0; i < ROUNDS; i++) {
		if ((i + id) % 4 == 0)
			deposit_a(3);
		else
			transfer(2);
		if (i % 32 == 0) {
			long v = read_b();

			if (v < last) /* b only grows */
				in_flight_seen++;
			last = v;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long i, deposits = 0, transfers = 0;

	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++) {
		long j;

		for (j = 0; j < ROUNDS; j++)
			if ((j + i) % 4 == 0)
				deposits++;
			else
				transfers++;
	}
	printf("a %ld b %ld\n", a_balance, b_balance);
	return a_balance + b_balance == 1000000 + 3 * deposits &&
			       b_balance == 2 * transfers &&
			       a_ops == deposits + transfers && in_flight_seen == 0 &&
			       b_ops == transfers + NTHREADS * ((ROUNDS + 31) / 32) ?
		       0 :
		       1;
}
