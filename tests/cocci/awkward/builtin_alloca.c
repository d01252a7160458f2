/* SPDX-License-Identifier: MIT */
/* __builtin_alloca() inside the section: stack memory of the thread that runs it. */
/* expect: held alloca */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 300

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char shared[32] = "shared-name";
static long total;

static void *worker(void *arg)
{
	long n = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		char *copy;

		pthread_mutex_lock(&m);
		copy = __builtin_alloca(sizeof shared);
		memcpy(copy, shared, sizeof shared);
		total += (long)strlen(copy);
		pthread_mutex_unlock(&m);
		n += copy[0] == 's';
	}
	return (void *)n;
}

int main(void)
{
	pthread_t t[NT];
	long i, n = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		n += (long)r;
	}
	printf("total %ld n %ld\n", total, n);
	return n == NT * IT && total == 11L * NT * IT ? 0 : 1;
}
