/* SPDX-License-Identifier: MIT */
/* Mutex fields given PTHREAD_MUTEX_INITIALIZER by designator in a global's
   brace initialiser, `.lock = PTHREAD_MUTEX_INITIALIZER`, in a typedef'd
   structure and in an anonymous one declared with its variable.  The
   designator is where the field is initialised, not a use of the lock:
   both locks are converted, their initialisers becoming liblock's. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 700

typedef struct {
	const char *name;
	long hits;
	pthread_mutex_t lock;
} counter_t;

static counter_t hits = { .name = "hits", .lock = PTHREAD_MUTEX_INITIALIZER };

static struct {
	pthread_mutex_t lock;
	long total;
} tally = { .total = 10, .lock = PTHREAD_MUTEX_INITIALIZER };

static void *work(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&hits.lock);
		hits.hits++;
		pthread_mutex_unlock(&hits.lock);
		pthread_mutex_lock(&tally.lock);
		tally.total += 2;
		pthread_mutex_unlock(&tally.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, work, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("%s %ld total %ld\n", hits.name, hits.hits, tally.total);
	if (hits.hits != THREADS * ROUNDS)
		return 1;
	return tally.total == 10 + 2 * THREADS * ROUNDS ? 0 : 1;
}
