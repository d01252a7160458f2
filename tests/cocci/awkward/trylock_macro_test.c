/* SPDX-License-Identifier: MIT */
/* Trylock macros that compare the call's result with 0, as allocators and
 * portability layers write them: jemalloc's
 * `#define MALLOC_MUTEX_TRYLOCK(m) (pthread_mutex_trylock(&(m)->lock) != 0)`
 * (true when busy, like the call) and the opposite
 * `#define TRY_ENTER(m) (pthread_mutex_trylock(m) == 0)` (true when taken),
 * each tested both ways; a spin-then-block lock whose slow path locks in
 * one function and unlocks in another. */
/* expect: transformed */
/* expect: held unlock in another function */
#include <pthread.h>
#include <stdio.h>

typedef struct {
	pthread_mutex_t lock;
	unsigned long n_spin, n_block;
} spin_mutex_t;

#define MUTEX_TRYLOCK(m) (pthread_mutex_trylock(&(m)->lock) != 0)
#define MUTEX_LOCK(m) pthread_mutex_lock(&(m)->lock)
#define MUTEX_UNLOCK(m) pthread_mutex_unlock(&(m)->lock)
#define TRY_ENTER(m) (pthread_mutex_trylock(m) == 0)

static spin_mutex_t arena = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long allocated, stats_taken, stats_missed, fast;

static void spin_lock_slow(spin_mutex_t *m)
{
	for (int i = 0; i < 4; i++) {
		if (!MUTEX_TRYLOCK(m)) {
			m->n_spin++;
			return;
		}
	}
	MUTEX_LOCK(m);
	m->n_block++;
}

static void spin_lock(spin_mutex_t *m)
{
	if (MUTEX_TRYLOCK(m))
		spin_lock_slow(m);
}

static void spin_unlock(spin_mutex_t *m)
{
	MUTEX_UNLOCK(m);
}

static int try_alloc_fast(long n)
{
	if (MUTEX_TRYLOCK(&arena))
		return 0;
	allocated += n;
	fast++;
	MUTEX_UNLOCK(&arena);
	return 1;
}

static void note_stats(void)
{
	if (TRY_ENTER(&stats_mu)) {
		stats_taken++;
		pthread_mutex_unlock(&stats_mu);
	} else {
		pthread_mutex_lock(&stats_mu);
		stats_missed++;
		pthread_mutex_unlock(&stats_mu);
	}
	if (!TRY_ENTER(&stats_mu))
		return;
	stats_taken++;
	pthread_mutex_unlock(&stats_mu);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 3000; i++) {
		if (!try_alloc_fast(id)) {
			spin_lock(&arena);
			allocated += id;
			spin_unlock(&arena);
		}
		if (i % 10 == 0)
			note_stats();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("allocated %ld stats %ld\n", allocated,
	       stats_taken + stats_missed >= 900 ? 900L : -1L);
	return allocated == 18000 && fast > 0 ? 0 : 1;
}
