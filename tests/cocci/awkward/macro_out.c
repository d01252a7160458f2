/* SPDX-License-Identifier: MIT */
/* A local written through a macro argument inside the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define FETCH(d) ((d) = g * 10)

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long g;

static void *worker(void *arg)
{
	long d = -1, sum = 0;
	long *out = arg;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		g++;
		FETCH(d);
		pthread_mutex_unlock(&m);
		if (d <= 0)
			sum = -1000000;
		sum += d > 0;
	}
	*out = sum;
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, s[NT], tot = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &s[i]);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NT; i++)
		tot += s[i];
	printf("g %ld tot %ld\n", g, tot);
	return g == NT * IT && tot == NT * IT ? 0 : 1;
}
