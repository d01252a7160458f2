/* SPDX-License-Identifier: MIT */
/* A cache object with two mutexes: obj->lock guards the entries,
   obj->stats_lock the hit and miss counters.  Lookups take the stats
   lock inside the section of the object lock; the stats are also read
   alone (a plain section of stats_lock). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_THREADS 7
#define N_OPS 3000
#define N_KEYS 32

struct cache {
	pthread_mutex_t lock;
	pthread_mutex_t stats_lock;
	int present[N_KEYS];
	unsigned long hits, misses;
	unsigned long fills;
};

static struct cache *the_cache;

static int cache_lookup(struct cache *c, int key)
{
	int found;

	pthread_mutex_lock(&c->lock);
	found = c->present[key];
	if (!found) {
		c->present[key] = 1;
		c->fills++;
	}
	pthread_mutex_lock(&c->stats_lock);
	if (found)
		c->hits++;
	else
		c->misses++;
	pthread_mutex_unlock(&c->stats_lock);
	pthread_mutex_unlock(&c->lock);
	return found;
}

static void cache_stats(struct cache *c, unsigned long *h, unsigned long *m)
{
	pthread_mutex_lock(&c->stats_lock);
	*h = c->hits;
	*m = c->misses;
	pthread_mutex_unlock(&c->stats_lock);
}

static void *client(void *arg)
{
	int n = (int)(long)arg, i;
	long found = 0;

	for (i = 0; i < N_OPS; i++)
		found += cache_lookup(the_cache, (n * 13 + i) % N_KEYS);
	return (void *)found;
}

int main(void)
{
	pthread_t t[N_THREADS];
	unsigned long hits, misses;
	long found = 0;
	void *r;
	int i;

	the_cache = calloc(1, sizeof(*the_cache));
	if (!the_cache)
		return 1;
	pthread_mutex_init(&the_cache->lock, NULL);
	pthread_mutex_init(&the_cache->stats_lock, NULL);
	for (i = 0; i < N_THREADS; i++)
		pthread_create(&t[i], NULL, client, (void *)(long)i);
	for (i = 0; i < N_THREADS; i++) {
		pthread_join(t[i], &r);
		found += (long)r;
	}
	cache_stats(the_cache, &hits, &misses);
	printf("hits %lu misses %lu fills %lu\n", hits, misses,
	       the_cache->fills);
	if (hits + misses != N_THREADS * N_OPS || misses != N_KEYS ||
	    the_cache->fills != N_KEYS || (unsigned long)found != hits)
		return 1;
	pthread_mutex_destroy(&the_cache->stats_lock);
	pthread_mutex_destroy(&the_cache->lock);
	free(the_cache);
	return 0;
}
