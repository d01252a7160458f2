/* SPDX-License-Identifier: MIT */
/* A hot counter behind glibc's adaptive mutex (it spins a little before
   it sleeps), as servers tuned for glibc declare it.  Its owner does not
   matter: it moves like a plain mutex, its sections delegated. */
/* expect: transformed */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 2000

static pthread_mutex_t hits_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static long hits, peak;

static void hit(long v)
{
	pthread_mutex_lock(&hits_lock);
	hits++;
	if (v > peak)
		peak = v;
	pthread_mutex_unlock(&hits_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++)
		hit(id * IT + i);
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
	printf("hits %ld peak %ld\n", hits, peak);
	return hits == NT * IT && peak == NT * IT - 1 ? 0 : 1;
}
