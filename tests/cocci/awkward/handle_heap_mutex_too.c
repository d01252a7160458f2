/* SPDX-License-Identifier: MIT */
/* expect: refused parameter 'p' of bump() */
/* A helper takes the mutex as a `void *` and locks through a pointer
 * local; it is called on a global mutex and on one the program
 * allocates.  The global's address reaching the parameter had the
 * section converted, and the heap mutex, still pthread's, was then taken
 * as a liblock lock (the output happened to match: a silent change, and
 * a write past the 40 bytes malloc() gave).  What a slot is given besides
 * lock addresses now follows it into every slot it flows to. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long c;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;

static void bump(void *p)
{
	pthread_mutex_t *m = p;
	for (int i = 0; i < 50000; i++) {
		pthread_mutex_lock(m);
		c++;
		pthread_mutex_unlock(m);
	}
}

int main(void)
{
	pthread_mutex_t *hm = malloc(sizeof *hm);
	pthread_mutex_init(hm, NULL);
	bump(&mtx);
	bump(hm);
	pthread_mutex_destroy(hm);
	free(hm);
	printf("%ld\n", c);
	return c == 100000 ? 0 : 1;
}
