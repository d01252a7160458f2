/* SPDX-License-Identifier: MIT */
/* A cache whose statistics function picks the call of a database API by
   its version: one `if (...)` head per #if branch, one body after the
   #endif (Berkeley DB's db->stat() changed signature twice; opendkim's
   dkim-cache.c is written this way), and a loop whose head is chosen the
   same way.  The sections of the cache lock sit in those bodies, one with
   a break out of the loop. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 6
#define IT 3000
#define API_VERSION 3
#define API_AT_LEAST(v) (API_VERSION >= (v))

struct store {
	int (*stat2)(struct store *, long *);
	int (*stat3)(struct store *, long *, int);
	long entries;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long lookups, hits;

static int stat_v2(struct store *s, long *out)
{
	*out = s->entries;
	return 0;
}

static int stat_v3(struct store *s, long *out, int flags)
{
	*out = s->entries + flags;
	return s->entries < 0;
}

/* The entry count, or -1. */
static long cache_entries(struct store *s)
{
	long n = 0, seen;

#if API_AT_LEAST(3)
	if (s->stat3(s, &n, 0) != 0)
#else
	if (s->stat2(s, &n) != 0)
#endif
	{
		n = -1;
	}
	else
	{
		pthread_mutex_lock(&cache_lock);
		seen = lookups;
		pthread_mutex_unlock(&cache_lock);
		n += seen >= 0 ? 0 : 1;
	}
	return n;
}

static void cache_get(long key)
{
	int i = 0;

#if API_AT_LEAST(2)
	while (i < 2)
#else
	for (;;)
#endif
	{
		pthread_mutex_lock(&cache_lock);
		lookups += i == 0;
		if ((key + i) % 3 == 0) {
			hits++;
			pthread_mutex_unlock(&cache_lock);
			break;
		}
		pthread_mutex_unlock(&cache_lock);
		i++;
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++)
		cache_get(id * IT + i);
	return NULL;
}

int main(void)
{
	struct store st = {stat_v2, stat_v3, 42};
	pthread_t t[NT];
	long expect_hits = 0;

	for (long id = 0; id < NT; id++)
		pthread_create(&t[id], NULL, worker, (void *)id);
	for (long id = 0; id < NT; id++)
		pthread_join(t[id], NULL);
	for (long id = 0; id < NT; id++)
		for (int i = 0; i < IT; i++) {
			long key = id * IT + i;

			expect_hits += key % 3 == 0 || (key + 1) % 3 == 0;
		}
	printf("lookups %ld hits %ld entries %ld\n", lookups, hits,
	       cache_entries(&st));
	if (lookups != (long)NT * IT || hits != expect_hits ||
	    cache_entries(&st) != 42) {
		fprintf(stderr, "wrong counts\n");
		return 1;
	}
	return 0;
}
