/* SPDX-License-Identifier: MIT */
/* mbuffer-style error checks: the result of the lock call goes to a
   local declared at the top of the function, and assert() reads it
   inside the section; the unlock's result goes to the same local.  The
   local is set (to 0, what locking a plain mutex gives) just before the
   section, so it travels into the extracted function.  It used to be
   taken for a local only the section uses: its declaration moved into
   the extracted function, uninitialised, and the caller's went away, so
   the compile check held the section. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ROUNDS 50000

static pthread_mutex_t tally_mu = PTHREAD_MUTEX_INITIALIZER;
static long tally, odd_rounds;

static void add_round(int n)
{
	int err;

	err = pthread_mutex_lock(&tally_mu);
	assert(err == 0);
	tally += n;
	if (n & 1)
		odd_rounds++;
	err = pthread_mutex_unlock(&tally_mu);
	assert(err == 0);
	if (err != 0)
		printf("unlock failed\n");
}

static int snapshot(long *t)
{
	int rc;

	rc = pthread_mutex_lock(&tally_mu);
	if (rc == 0)
		*t = tally;
	pthread_mutex_unlock(&tally_mu);
	return rc;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < ROUNDS; i++)
		add_round((i + id) % 5);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long seen = -1;

	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	if (snapshot(&seen) != 0)
		return 1;
	printf("tally=%ld odd=%ld seen=%ld\n", tally, odd_rounds, seen);
	return seen == tally ? 0 : 1;
}
