/* SPDX-License-Identifier: MIT */
/* expect: held 'hits' is declared inside the section */
/* A block-scope 'extern' declaration written inside the section
 * (old-style code declares globals where it first needs them), and the
 * global read again after the unlock in the same block.
 * The defect it guards against: rcl-refactor treats 'hits' as a local declared in the
 * section and used after it, hoists "long hits;" (without 'extern') into
 * the caller and passes its address: the section increments a fresh
 * uninitialised local instead of the global.  Expected "hits 3000",
 * the rewritten program prints "hits 0" (under every algorithm). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	long last = 0;
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		extern long hits;
		hits++;
		pthread_mutex_unlock(&m);
		last = hits > last ? hits : last;
	}
	return (void *)(long)(last > 0);
}

long hits;

int main(void)
{
	pthread_t t[3];
	long s = 0;
	void *r;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		s += (long)r;
	}
	printf("hits %ld s %ld\n", hits, s);
	return hits == 3000 ? 0 : 1;
}
