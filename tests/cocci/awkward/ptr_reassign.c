/* SPDX-License-Identifier: MIT */
/* A pointer local that takes the locks of an array in turn: which
   element each section holds is not one lock expression, so the section
   is not extracted; but the pointer only ever carries the array's
   locks, so the array is converted and the section runs in place on the
   lock word (held), through the pointer, now a liblock_lock_t *. */
/* expect: held locked through local 'm' */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300
#define N 4

static pthread_mutex_t chain[N] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static long val[N];

static void sweep(long d)
{
	pthread_mutex_t *m = &chain[0];
	int i;

	for (i = 0; i < N; i++) {
		m = &chain[i];
		pthread_mutex_lock(m);
		val[i] += d;
		pthread_mutex_unlock(m);
	}
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++)
		sweep((long)arg + 1);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < N; i++)
		sum += val[i];
	printf("sum %ld\n", sum);
	return sum == N * 10 * IT ? 0 : 1;
}
