/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Code that keeps every pthread result, as checkers and coding standards
   ask: int rc = pthread_mutex_lock(&m); assert(rc == 0); ... and
   rc = pthread_mutex_unlock(&m); whose value the function returns.  A
   plain mutex gives 0 to both; the extracted code must too. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 3
#define ROUNDS 30000

typedef struct {
	pthread_mutex_t guard;
	long hits;
	long bytes;
	int last_rc;
} stats_t;

static stats_t g_stats = { PTHREAD_MUTEX_INITIALIZER, 0, 0, -1 };

static void stats_hit(stats_t *st, long n)
{
	int rc = pthread_mutex_lock(&st->guard);
	assert(rc == 0);
	st->hits++;
	st->bytes += n;
	st->last_rc = rc;
	rc = pthread_mutex_unlock(&st->guard);
	assert(rc == 0);
	(void)rc;
}

static int stats_reset_bytes(stats_t *st, long *old)
{
	int err;

	err = pthread_mutex_lock(&st->guard);
	*old = st->bytes;
	st->bytes = 0;
	err = pthread_mutex_unlock(&st->guard);
	return err;
}

static void *worker(void *arg)
{
	long id = (long)arg, drained = 0, old;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		stats_hit(&g_stats, id + 1);
		if (i % 1000 == 999) {
			if (stats_reset_bytes(&g_stats, &old) != 0)
				return (void *)-1L;
			drained += old;
		}
	}
	return (void *)drained;
}

int main(void)
{
	pthread_t th[NWORKERS];
	long i, total = 0;
	void *r;

	for (i = 0; i < NWORKERS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < NWORKERS; i++) {
		pthread_join(th[i], &r);
		if (r == (void *)-1L)
			return 1;
		total += (long)r;
	}
	total += g_stats.bytes;
	printf("hits=%ld bytes=%ld last_rc=%d\n", g_stats.hits, total,
	       g_stats.last_rc);
	return 0;
}
