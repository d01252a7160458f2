/* SPDX-License-Identifier: MIT */
/* A section that ends in an if/else releasing the lock in each branch,
   each branch going on with its own work after the unlock (a cache
   lookup: hit or miss).  The code after each unlock runs after the
   section, in the caller. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 20000
#define SLOTS 64

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long cache[SLOTS], hits, misses;

static void *worker(void *arg)
{
	long id = (long)arg, i, work = 0, last = 0;

	for (i = 0; i < IT; i++) {
		long key = (i * 7 + id) % SLOTS;

		pthread_mutex_lock(&cache_lock);
		if (cache[key] & 1) {
			hits++;
			last = cache[key]++;
			pthread_mutex_unlock(&cache_lock);
			work += 2 + (last & 1);
		} else {
			misses++;
			cache[key] += 3;
			pthread_mutex_unlock(&cache_lock);
			work++;
		}
	}
	return (void *)work;
}

int main(void)
{
	pthread_t t[NT];
	long i, total = 0, sum = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		total += (long)r;
	}
	for (i = 0; i < SLOTS; i++)
		sum += cache[i];
	/* hits and misses depend on the interleaving; their sum and the
	   work's bounds do not */
	printf("%ld lookups\n", hits + misses);
	printf("work %s\n", total >= NT * IT && total <= 3L * NT * IT ?
	       "in range" : "OUT OF RANGE");
	printf("cache %s\n", sum == 3 * misses + hits ? "consistent" :
	       "INCONSISTENT");
	return 0;
}
