/* SPDX-License-Identifier: MIT */
/* Locals whose address is taken inside the section (out parameters). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long seq;

static void next(long *out, int *wrapped)
{
	*out = ++seq;
	*wrapped = (seq % 100) == 0;
}

static void *worker(void *arg)
{
	long v, last = 0;
	int w, wraps = 0, i;
	long *bad = arg;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		next(&v, &w);
		pthread_mutex_unlock(&m);
		if (v <= last)
			(*bad)++;
		last = v;
		wraps += w;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &bad);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("seq %ld bad %ld\n", seq, bad);
	return seq == NT * IT && bad == 0 ? 0 : 1;
}
