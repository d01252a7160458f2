/* SPDX-License-Identifier: MIT */
/* A K&R function definition holding a section: neither Coccinelle nor
   the tool's parser reads it, the compiler does.  Its lock calls stay in
   place, renamed to liblock's (a held section). */
/* expect: held K&R */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

#pragma GCC diagnostic ignored "-Wold-style-definition"
static long add(d, twice)
long d;
int twice;
{
	long now;

	pthread_mutex_lock(&m);
	total += twice ? 2 * d : d;
	now = total;
	pthread_mutex_unlock(&m);
	return now;
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++)
		add((long)arg, i & 1);
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
	printf("total %ld\n", total);
	return total == 6 * (IT / 2) * 3 ? 0 : 1;
}
