/* SPDX-License-Identifier: MIT */
/* Striped locks: an array of mutexes indexed by hash in the call. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500
#define NS 4

static pthread_mutex_t stripe[NS] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static long hits[NS * 4];

static void hit(unsigned key)
{
	pthread_mutex_lock(&stripe[key % NS]);
	hits[key % (NS * 4)]++;
	pthread_mutex_unlock(&stripe[key % NS]);
}

static void *worker(void *arg)
{
	unsigned i;

	for (i = 0; i < IT; i++)
		hit(i * 4 + (unsigned)(long)arg);
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
	for (i = 0; i < NS * 4; i++)
		sum += hits[i];
	printf("sum %ld hits0 %ld\n", sum, hits[0]);
	return sum == NT * IT ? 0 : 1;
}
