/* SPDX-License-Identifier: MIT */
/* A WITH_LOCK(m) block macro made of one for statement and a flag: the
   initialisation locks, the step unlocks and clears the flag.  A
   continue runs the step (the unlock); the sections here use one. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 500

#define WITH_LOCK(mx) \
	for (int wl_go_ = (pthread_mutex_lock(mx), 1); wl_go_; \
	     wl_go_ = (pthread_mutex_unlock(mx), 0))

static pthread_mutex_t stats_mx = PTHREAD_MUTEX_INITIALIZER;
static unsigned long evens, odds, total;

static void *count(void *arg)
{
	unsigned long base = (unsigned long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		WITH_LOCK(&stats_mx) {
			total += base;
			if (r & 1)
				continue;
			evens++;
		}
		WITH_LOCK(&stats_mx)
			odds += r & 1;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	unsigned long k;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, count, (void *)(k + 1));
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	if (evens != odds || total != 6 * ROUNDS) {
		printf("wrong: %lu %lu %lu\n", evens, odds, total);
		return 1;
	}
	printf("evens %lu odds %lu total %lu\n", evens, odds, total);
	return 0;
}
