/* SPDX-License-Identifier: MIT */
/* A block in the section declares a name that shadows a local. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long sum;

static void *worker(void *arg)
{
	long i = (long)arg, k;

	for (k = 0; k < IT; k++) {
		pthread_mutex_lock(&m);
		{
			long i = 1;

			sum += i;
		}
		sum += i;
		pthread_mutex_unlock(&m);
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
	printf("sum %ld\n", sum);
	return sum == NT * IT + 6 * IT ? 0 : 1;
}
