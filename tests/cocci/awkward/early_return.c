/* SPDX-License-Identifier: MIT */
/* A lookup table with an early return from the middle of the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t tbl_lock = PTHREAD_MUTEX_INITIALIZER;
static int table[64];
static long misses;

static int lookup(int key)
{
	int v;

	pthread_mutex_lock(&tbl_lock);
	v = table[key & 63];
	if (v == 0) {
		misses++;
		table[key & 63] = key + 1;
		pthread_mutex_unlock(&tbl_lock);
		return -1;
	}
	pthread_mutex_unlock(&tbl_lock);
	return v;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++)
		lookup((int)(id * 16 + i % 16));
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
	for (i = 0; i < 64; i++)
		sum += table[i];
	printf("misses %ld sum %ld\n", misses, sum);
	return misses == 64 && sum == 63 * 64 / 2 + 64 ? 0 : 1;
}
