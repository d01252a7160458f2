/* SPDX-License-Identifier: MIT */
/*
 * Behaviour corpus: memcached-style striped locks.  The mutexes live in a
 * calloc'ed array initialised in a loop, callers lock them through
 * trivial wrapper functions (stripe_lock(hv) / stripe_unlock(hv)) built
 * on a mutex_lock() macro; another lock is taken through LOCK()/UNLOCK()
 * macros.  Sections use a local whose address is taken, a static local,
 * a local array, and an early return.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define mutex_lock(x) pthread_mutex_lock(x)
#define mutex_unlock(x) pthread_mutex_unlock(x)
#define LOCK(l) pthread_mutex_lock(&(l))
#define UNLOCK(l) pthread_mutex_unlock(&(l))

#define NSTRIPES 16
#define NKEYS 64
#define NTHREADS 4
#define ROUNDS 2000

static pthread_mutex_t *stripes;
static pthread_mutex_t stats_lock;
static unsigned long values[NKEYS];
static unsigned long nstats;

static void stripe_lock(unsigned int hv)
{
	mutex_lock(&stripes[hv % NSTRIPES]);
}

static void stripe_unlock(unsigned int hv)
{
	mutex_unlock(&stripes[hv % NSTRIPES]);
}

static void bump(unsigned long *slot, unsigned long by)
{
	*slot += by;
}

/* Adds @by to key @k; returns the old value, or 0 for a zero @by. */
static unsigned long add(unsigned int k, unsigned long by)
{
	unsigned long old;
	unsigned long seen[2];

	stripe_lock(k);
	old = values[k];
	if (by == 0) {
		stripe_unlock(k);
		return 0;
	}
	seen[0] = old;
	bump(&values[k], by);
	seen[1] = values[k];
	stripe_unlock(k);
	return seen[1] - seen[0] == by ? old : (unsigned long)-1;
}

static void count(unsigned long n)
{
	static unsigned long calls;
	unsigned long local = n;
	unsigned long *p = &local;

	LOCK(stats_lock);
	calls++;
	nstats += *p;
	UNLOCK(stats_lock);
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(long)arg, i;

	for (i = 0; i < ROUNDS; i++) {
		if (add((i * 7 + id) % NKEYS, id + 1) == (unsigned long)-1)
			abort();
		count(1);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	unsigned long sum = 0, want = 0;
	int i;

	stripes = calloc(NSTRIPES, sizeof(pthread_mutex_t));
	if (!stripes)
		return 2;
	for (i = 0; i < NSTRIPES; i++)
		pthread_mutex_init(&stripes[i], NULL);
	pthread_mutex_init(&stats_lock, NULL);
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NKEYS; i++)
		sum += values[i];
	for (i = 0; i < NTHREADS; i++)
		want += (unsigned long)(i + 1) * ROUNDS;
	if (add(3, 0) != 0)
		return 1;
	printf("sum %lu want %lu stats %lu\n", sum, want, nstats);
	for (i = 0; i < NSTRIPES; i++)
		pthread_mutex_destroy(&stripes[i]);
	pthread_mutex_destroy(&stats_lock);
	free(stripes);
	return sum == want && nstats == (unsigned long)NTHREADS * ROUNDS ? 0 : 1;
}
