/* SPDX-License-Identifier: MIT */
/* A trylock wrapper that takes the mutex (`xtrylock(&side)`): its call
   sites are the sections, delegated through rcl_tryexec().  The trylock
   in the wrapper's own body was counted as one more section, of a lock
   named after the parameter, refused ("no declaration of a
   pthread_mutex_t named 'mx'"), and the run exited 1. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 10000

static pthread_mutex_t side = PTHREAD_MUTEX_INITIALIZER;
static long hits, busy;

static int xtrylock(pthread_mutex_t *mx)
{
	return pthread_mutex_trylock(mx);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++) {
		if (xtrylock(&side) == 0) {
			hits++;
			pthread_mutex_unlock(&side);
		} else {
			pthread_mutex_lock(&side);
			busy++;
			pthread_mutex_unlock(&side);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", hits + busy);
	return 0;
}
