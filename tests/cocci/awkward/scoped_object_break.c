/* SPDX-License-Identifier: MIT */
/* An object-like scoped lock macro in the two-`for` form, calling
   pthread directly on a global mutex: `STATS_LOCKED { ... }`.  A `break`
   in the body is caught by the inner loop, so the outer step still
   unlocks: it ends the section normally, and the section is delegated
   (the break becomes a goto to a label before the unlock). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define PER_THREAD 1000
#define CAP 2500

#define STATS_LOCKED                                                      \
	for (int st_outer_ = (pthread_mutex_lock(&stats_mu), 1); st_outer_; \
	     st_outer_ = (pthread_mutex_unlock(&stats_mu), 0))               \
		for (int st_inner_ = 1; st_inner_; st_inner_ = 0)

static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long accepted, dropped;

static void *producer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < PER_THREAD; i++) {
		STATS_LOCKED {
			if (accepted >= CAP) {
				dropped++;
				break; /* full: the lock is still released */
			}
			accepted++;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	long a = 0, d = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	STATS_LOCKED {
		a = accepted;
		d = dropped;
	}
	printf("accepted %ld dropped %ld\n", a, d);
	return a == CAP && a + d == THREADS * PER_THREAD ? 0 : 1;
}
