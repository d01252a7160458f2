/* SPDX-License-Identifier: MIT */
/* `long a = x, b = y;` declared inside the section and used after it. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER;
static long credit, debit;
static long checks;

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&acct_lock);
		credit += id + 1;
		debit += 1;
		long a = credit, b = debit;
		pthread_mutex_unlock(&acct_lock);
		if (a < b)
			checks++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("credit %ld debit %ld checks %ld\n", credit, debit, checks);
	return credit == 10 * IT && debit == NT * IT && checks == 0 ? 0 : 1;
}
