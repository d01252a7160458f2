/* SPDX-License-Identifier: MIT */
/* A striped lock reached through a pointer local: l = &locks[h % N]
   (assigned once, before the section: it stands for its pointee). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500
#define NL 8

static pthread_mutex_t locks[NL];
static long buckets[NL];

static void bump(unsigned h)
{
	pthread_mutex_t *l = &locks[h % NL];

	pthread_mutex_lock(l);
	buckets[h % NL]++;
	pthread_mutex_unlock(l);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned i;

	for (i = 0; i < IT; i++)
		bump(i * 7 + (unsigned)id);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	for (i = 0; i < NL; i++)
		pthread_mutex_init(&locks[i], NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NL; i++)
		sum += buckets[i];
	printf("sum %ld\n", sum);
	return sum == NT * IT ? 0 : 1;
}
