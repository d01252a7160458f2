/* SPDX-License-Identifier: MIT */
/* A static local of the function, updated inside the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static long ticket(void)
{
	static long next = 100;
	long t;

	pthread_mutex_lock(&m);
	t = next++;
	pthread_mutex_unlock(&m);
	return t;
}

static void *worker(void *arg)
{
	long max = 0, t;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		t = ticket();
		if (t > max)
			max = t;
	}
	return (void *)max;
}

int main(void)
{
	pthread_t t[NT];
	long i, max = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		if ((long)r > max)
			max = (long)r;
	}
	printf("max %ld next %ld\n", max, ticket());
	return max == 100 + NT * IT - 1 ? 0 : 1;
}
