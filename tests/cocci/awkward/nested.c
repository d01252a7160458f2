/* SPDX-License-Identifier: MIT */
/* A section of one lock nested in the section of another: both are
   extracted, the outer one's function calls the inner one's. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t inner = PTHREAD_MUTEX_INITIALIZER;
static long x, y;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&outer);
		x++;
		pthread_mutex_lock(&inner);
		y += x & 1;
		pthread_mutex_unlock(&inner);
		pthread_mutex_unlock(&outer);
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
	printf("x %ld y %ld\n", x, y);
	return x == NT * IT && y == NT * IT / 2 ? 0 : 1;
}
