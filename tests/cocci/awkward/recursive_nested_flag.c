/* SPDX-License-Identifier: MIT */
/* A portable-runtime style mutex object: created nested (recursive, with
   an attribute object) or not (NULL attribute) by a flag, and taken
   through wrappers that return pthreads' result.  A cache takes its
   nested mutex, and its eviction helper takes it again; a trylock by the
   holder succeeds.  A plain statistics mutex made by the same function
   counts the evictions.  The mutex keeps the type its flag gives it
   (liblock_mutexattr_flags() reads the attribute when it runs). */
/* expect: held would take the server thread, not the caller */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 4
#define ROUNDS 3000
#define SLOTS 16

typedef struct {
	pthread_mutex_t mutex;
} rt_mutex_t;

static int rt_mutex_create(rt_mutex_t **out, int nested)
{
	rt_mutex_t *m = calloc(1, sizeof(*m));
	int rv;

	if (!m)
		return -1;
	if (nested) {
		pthread_mutexattr_t mattr;

		rv = pthread_mutexattr_init(&mattr);
		if (rv) {
			free(m);
			return rv;
		}
		rv = pthread_mutexattr_settype(&mattr, PTHREAD_MUTEX_RECURSIVE);
		if (rv) {
			pthread_mutexattr_destroy(&mattr);
			free(m);
			return rv;
		}
		rv = pthread_mutex_init(&m->mutex, &mattr);
		pthread_mutexattr_destroy(&mattr);
	} else
		rv = pthread_mutex_init(&m->mutex, NULL);
	if (rv) {
		free(m);
		return rv;
	}
	*out = m;
	return 0;
}

static int rt_mutex_lock(rt_mutex_t *m)
{
	return pthread_mutex_lock(&m->mutex);
}

static int rt_mutex_trylock(rt_mutex_t *m)
{
	return pthread_mutex_trylock(&m->mutex);
}

static int rt_mutex_unlock(rt_mutex_t *m)
{
	return pthread_mutex_unlock(&m->mutex);
}

static void rt_mutex_destroy(rt_mutex_t *m)
{
	pthread_mutex_destroy(&m->mutex);
	free(m);
}

static rt_mutex_t *cache_mu, *stats_mu;
static long cache[SLOTS];
static int used;
static long evictions, relocks;

/* Called with cache_mu held, by the holder: takes it again. */
static void cache_evict(void)
{
	rt_mutex_lock(cache_mu);
	if (used == SLOTS) {
		for (int i = 0; i < SLOTS / 2; i++)
			cache[i] = cache[i + SLOTS / 2];
		used = SLOTS / 2;
		rt_mutex_lock(stats_mu);
		evictions++;
		rt_mutex_unlock(stats_mu);
	}
	rt_mutex_unlock(cache_mu);
}

static void cache_put(long v)
{
	rt_mutex_lock(cache_mu);
	cache_evict();
	cache[used++] = v;
	if (rt_mutex_trylock(cache_mu) == 0) {
		relocks++;
		rt_mutex_unlock(cache_mu);
	}
	rt_mutex_unlock(cache_mu);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < ROUNDS; i++)
		cache_put(id * ROUNDS + i);
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	long sum = 0;

	if (rt_mutex_create(&cache_mu, 1) || rt_mutex_create(&stats_mu, 0))
		return 1;
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < used; i++)
		sum += cache[i] >= 0;
	printf("used %d evictions %ld relocks %ld kept %ld\n", used,
	       evictions, relocks, sum);
	rt_mutex_destroy(stats_mu);
	rt_mutex_destroy(cache_mu);
	return 0;
}
