/* SPDX-License-Identifier: MIT */
/* A thread-local counter updated inside the section. */
/* expect: held thread-local */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread long mine;
static long total;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		mine++;
		total++;
		pthread_mutex_unlock(&m);
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("sum %ld total %ld\n", sum, total);
	return sum == NT * IT && total == NT * IT ? 0 : 1;
}
