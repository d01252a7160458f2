/* SPDX-License-Identifier: MIT */
/* A pointer local assigned the address of one lock, then of another: a
   lock call through it may take either.  Both locks stayed POSIX; they
   are now converted together, and the section through the pointer is
   held, on whichever lock it holds. */
/* expect: held locked through local 'm' of count() */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 3000

static pthread_mutex_t even_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t odd_lock = PTHREAD_MUTEX_INITIALIZER;
static long even, odd;

static void count(int i)
{
	pthread_mutex_t *m = &even_lock;
	long *c = &even;

	if (i % 2) {
		m = &odd_lock;
		c = &odd;
	}
	pthread_mutex_lock(m);
	(*c)++;
	pthread_mutex_unlock(m);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		count(i);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("even %ld odd %ld\n", even, odd);
	return even + odd == NT * IT ? 0 : 1;
}
