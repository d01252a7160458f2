/* SPDX-License-Identifier: MIT */
/* expect: held the section names another 'quota' before the declaration */
/* C99 code that reuses a global's name for a local declared halfway
   through the section: the first statement reads the global quota, the
   declaration after it starts a local quota used after the unlock.  The
   extracted function would declare the local at its top, where the first
   statement's quota would become the local: the section stays in place. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER;
static long quota = 500, granted, last_left;

static long grant(long want)
{
	pthread_mutex_lock(&acct_lock);
	long give = want < quota ? want : quota;
	granted += give;
	long quota = give * 2;
	pthread_mutex_unlock(&acct_lock);
	return quota;
}

static void *client(void *arg)
{
	long id = (long)arg, sum = 0;
	int i;

	for (i = 0; i < 1000; i++)
		sum += grant(1 + (i + id) % 3);
	return (void *)sum;
}

int main(void)
{
	pthread_t t[3];
	long i, sum = 0;
	void *r;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, client, (void *)i);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	last_left = quota;
	printf("granted %ld doubled %ld quota %ld\n", granted, sum, last_left);
	return 0;
}
