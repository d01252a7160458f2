/* SPDX-License-Identifier: MIT */
/* expect: held #undef CHECKED at line 61 */
/* Macros defined or undefined inside a function, above its critical
   section, that the section reads through another macro or only in an
   #ifdef.  The extracted function goes before the function, where the
   preprocessor has not read those lines yet: they are replayed there
   (the #ifdef's name was missed, and that section silently counted
   with the file's meaning).  An #undef under an #if there cannot be
   replayed without its condition: that section is held. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ROUNDS 20000

#define WEIGHT 1
#define CHECKED
#define SCALED(v) ((v) * WEIGHT)

static pthread_mutex_t acct_mu = PTHREAD_MUTEX_INITIALIZER;
static long balance, deposits, checks;

static void reset(void)
{
	pthread_mutex_lock(&acct_mu);
	balance = deposits = checks = 0;
	pthread_mutex_unlock(&acct_mu);
}

static void deposit(long v)
{
#undef WEIGHT
#define WEIGHT 3
	pthread_mutex_lock(&acct_mu);
	balance += SCALED(v);
	deposits++;
	pthread_mutex_unlock(&acct_mu);
#undef WEIGHT
#define WEIGHT 1
}

static void tally(void)
{
#define TALLY_TWICE
	pthread_mutex_lock(&acct_mu);
#ifdef TALLY_TWICE
	checks += 2;
#else
	checks++;
#endif
	pthread_mutex_unlock(&acct_mu);
#undef TALLY_TWICE
}

static void withdraw(long v)
{
	long left;

	/* this build checks nothing past this point */
#ifdef CHECKED
#undef CHECKED
#endif
	pthread_mutex_lock(&acct_mu);
#ifdef CHECKED
	checks++;
#endif
	balance -= v;
	left = balance;
	pthread_mutex_unlock(&acct_mu);
	(void)left;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < ROUNDS; i++) {
		deposit(id + i % 5);
		if (i % 4 == 0)
			withdraw(1);
		if (i % 10 == 0)
			tally();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];

	reset();
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("balance %ld deposits %ld checks %ld\n", balance, deposits,
	       checks);
	return 0;
}
