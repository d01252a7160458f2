/* SPDX-License-Identifier: MIT */
/* C99 loop variables declared in the for statement of the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int hist[10];

static long bump_all(int w)
{
	long s = 0;

	pthread_mutex_lock(&m);
	for (int i = 0; i < 10; i++) {
		hist[i] += w;
		s += hist[i];
	}
	pthread_mutex_unlock(&m);
	return s;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		bump_all(1);
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
	printf("h0 %d h9 %d\n", hist[0], hist[9]);
	return bump_all(0) == 10L * NT * IT ? 0 : 1;
}
