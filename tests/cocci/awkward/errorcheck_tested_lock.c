/* SPDX-License-Identifier: MIT */
/* An error-checking mutex whose lock result is tested: deposit() gives
   up when pthread_mutex_lock() fails, as it does (EDEADLK) when audit(),
   which holds the lock, calls it.  Locking a plain mutex gives 0, so the
   tool delegated such a section with the result 0: every refused deposit
   went through (counter 132000 instead of 12000).  The section is held,
   where liblock_lock() gives the error. */
/* expect: held the lock call's result is used, and the lock is error-checking */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 3000

static pthread_mutex_t acct;
static long balance, refused, audits;

static int deposit(long v)
{
	if (pthread_mutex_lock(&acct) != 0)
		return -1;
	balance += v;
	pthread_mutex_unlock(&acct);
	return 0;
}

static void audit(void)
{
	pthread_mutex_lock(&acct);
	audits++;
	if (deposit(100) < 0)
		refused++;
	pthread_mutex_unlock(&acct);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++) {
		deposit(1);
		if (i % 10 == 0)
			audit();
	}
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_t t[NT];

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&acct, &a);
	pthread_mutexattr_destroy(&a);
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&acct);
	printf("balance %ld audits %ld refused %ld\n", balance, audits,
	       refused);
	return 0;
}
