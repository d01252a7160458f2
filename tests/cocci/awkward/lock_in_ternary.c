/* SPDX-License-Identifier: MIT */
/* A lock taken only when the program runs threaded, through a
   conditional expression with both arms cast to void (the result is
   thrown away).  The section is held, and its reason says the call is
   taken on some paths only: it said the call's result was used. */
/* expect: held the lock call is an operand of a conditional expression */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 1000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int threaded;
static long hits;

static void hit(void)
{
	threaded ? (void)pthread_mutex_lock(&m) : (void)0;
	hits++;
	threaded ? (void)pthread_mutex_unlock(&m) : (void)0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++)
		hit();
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	hit();
	threaded = 1;
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld\n", hits);
	return 0;
}
