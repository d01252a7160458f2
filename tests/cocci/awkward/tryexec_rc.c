/* SPDX-License-Identifier: MIT */
/* Shape 3 of a trylock section: the trylock's result goes to a local
   first, `rc = pthread_mutex_trylock(&m); if (rc == 0) {...}` or
   `int rc = ...; if (rc) return rc;`, and the caller also returns it.
   The local must hold 0 when the section ran and EBUSY when the lock was
   busy, as the trylock's would; a bank of counters checks that every
   successful deposit was counted once and every EBUSY was reported. */
/* expect: transformed */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 5000

static pthread_mutex_t bank = PTHREAD_MUTEX_INITIALIZER;
static long balance, deposits, peeks;

static int deposit(long amount, long *after)
{
	int rc;

	rc = pthread_mutex_trylock(&bank);
	if (rc == 0) {
		balance += amount;
		deposits++;
		*after = balance;
		pthread_mutex_unlock(&bank);
	}
	return rc;
}

static int peek(long *seen)
{
	int rc = pthread_mutex_trylock(&bank);
	if (rc != 0)
		return rc;
	peeks++;
	*seen = balance;
	pthread_mutex_unlock(&bank);
	return 0;
}

static void *worker(void *arg)
{
	long *mine = arg, after = 0, seen;
	int i, rc;

	for (i = 0; i < IT; i++) {
		rc = deposit(2, &after);
		if (rc == 0) {
			mine[0]++;
			if (after < 2 || after % 2)
				return (void *)1;
		} else if (rc == EBUSY) {
			mine[1]++;
		} else {
			return (void *)2;
		}
		rc = peek(&seen);
		if (rc == 0)
			mine[2]++;
		else if (rc != EBUSY)
			return (void *)3;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long c[NT][3] = { { 0 } }, ok = 0, busy = 0, pk = 0;
	void *ret;
	int i, bad = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, c[i]);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
		ok += c[i][0];
		busy += c[i][1];
		pk += c[i][2];
	}
	bad |= ok + busy != NT * IT || ok != deposits || pk != peeks;
	bad |= balance != 2 * deposits;
	printf("balanced %s\n", bad ? "no" : "yes");
	return bad;
}
