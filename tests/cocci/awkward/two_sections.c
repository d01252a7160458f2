/* SPDX-License-Identifier: MIT */
/* Two sections of the same lock in one function sharing locals. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long bal[8];

static int transfer(int from, int to, long amt)
{
	long have;

	pthread_mutex_lock(&m);
	have = bal[from];
	pthread_mutex_unlock(&m);
	if (have < amt)
		amt = have;
	pthread_mutex_lock(&m);
	if (bal[from] < amt) {
		pthread_mutex_unlock(&m);
		return 0;
	}
	bal[from] -= amt;
	bal[to] += amt;
	pthread_mutex_unlock(&m);
	return amt > 0;
}

static void *worker(void *arg)
{
	long id = (long)arg, n = 0;
	int i;

	for (i = 0; i < IT; i++)
		n += transfer((int)(id + i) & 7, (int)(id + i + 3) & 7, 3);
	return (void *)n;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	for (i = 0; i < 8; i++)
		bal[i] = 100;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 8; i++)
		sum += bal[i];
	printf("sum %ld\n", sum);
	return sum == 800 ? 0 : 1;
}
