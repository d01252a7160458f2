/* SPDX-License-Identifier: MIT */
/* Per-thread counters flushed into global statistics opportunistically:
   a worker tries the stats lock through a macro and keeps counting
   locally while it is busy (a trylock section through a macro, run by
   rcl_tryexec(): the pending count is cleared only when it ran), and
   every so often adds a sample under the same lock the plain way. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8
#define ROUNDS 3000

#define STATS_LOCK() pthread_mutex_lock(&stats_lock)
#define STATS_TRYLOCK() pthread_mutex_trylock(&stats_lock)
#define STATS_UNLOCK() pthread_mutex_unlock(&stats_lock)

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	unsigned long events;
	unsigned long flushes;
	unsigned long samples;
	unsigned long sample_sum;
} stats;

struct local {
	unsigned long pending;
};

static void maybe_flush(struct local *l)
{
	if (STATS_TRYLOCK() != 0)
		return; /* busy: keep it for later */
	stats.events += l->pending;
	stats.flushes++;
	STATS_UNLOCK();
	l->pending = 0;
}

static void sample(unsigned long v)
{
	STATS_LOCK();
	stats.samples++;
	stats.sample_sum += v;
	STATS_UNLOCK();
}

static void *worker(void *arg)
{
	struct local l = { 0 };
	unsigned long id = (unsigned long)arg;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		l.pending++;
		if (i % 7 == 0)
			maybe_flush(&l);
		if (i % 50 == 0)
			sample(id + i);
	}
	while (l.pending)
		maybe_flush(&l);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	unsigned long want_sum = 0, i;
	int j;

	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++)
		for (j = 0; j < ROUNDS; j += 50)
			want_sum += i + j;
	printf("events %lu samples %lu sum %lu\n", stats.events,
	       stats.samples, stats.sample_sum);
	if (stats.events != NTHREADS * ROUNDS || stats.flushes == 0 ||
	    stats.samples != NTHREADS * ((ROUNDS + 49) / 50) ||
	    stats.sample_sum != want_sum)
		return 1;
	return 0;
}
