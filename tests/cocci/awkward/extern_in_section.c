/* SPDX-License-Identifier: MIT */
/* expect: held 'hits' is declared inside the section */
/* A block-scope 'extern' declaration written inside the section
 * (old-style code declares globals where it first needs them), and the
 * global read again after the unlock in the same block, by the main
 * thread while no worker runs.
 * The defect it guards against: rcl-refactor treated 'hits' as a local
 * declared in the section and used after it, hoisted "long hits;"
 * (without 'extern') into the caller and passed its address: the section
 * incremented a fresh uninitialised local instead of the global. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static long bump_and_show(void)
{
	pthread_mutex_lock(&m);
	extern long hits;
	hits++;
	pthread_mutex_unlock(&m);
	return hits;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		extern long hits;
		hits += 2;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

long hits;

int main(void)
{
	pthread_t t[3];
	long first, last;

	first = bump_and_show();
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	last = bump_and_show();
	printf("first %ld last %ld hits %ld\n", first, last, hits);
	return last == 6002 ? 0 : 1;
}
