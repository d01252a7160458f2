/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A cache lookup whose miss path drops the lock and calls the slow
   filler, which takes the same lock again: the call runs after the early
   unlock, in the caller, so the section may go to the server. */
#include <pthread.h>
#include <stdio.h>

#define SLOTS 32

struct entry {
	int key, val;
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry cache[SLOTS];
static unsigned long hits, fills;

static int compute(int key)
{
	return key * 7 + 3;
}

static int cache_fill(int key)
{
	int v = compute(key);

	pthread_mutex_lock(&cache_mu);
	if (cache[key % SLOTS].key != key) {
		cache[key % SLOTS].key = key;
		cache[key % SLOTS].val = v;
		fills++;
	}
	pthread_mutex_unlock(&cache_mu);
	return v;
}

static int cache_get(int key)
{
	struct entry *e;
	int v;

	pthread_mutex_lock(&cache_mu);
	e = &cache[key % SLOTS];
	if (e->key != key) {
		pthread_mutex_unlock(&cache_mu);
		return cache_fill(key);
	}
	v = e->val;
	hits++;
	pthread_mutex_unlock(&cache_mu);
	return v;
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	int i;

	for (i = 0; i < 20000; i++)
		sum += cache_get(1 + (int)((i * 3 + id) % 24));
	return (void *)sum;
}

int main(void)
{
	pthread_t t[3];
	long i, sum = 0;
	void *r;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	for (i = 0; i < SLOTS; i++)
		if (cache[i].key && cache[i].val != compute(cache[i].key))
			return 1;
	printf("sum %ld, %s\n", sum,
	       hits + fills <= 60000 && fills >= 24 ? "counts sane" : "bad");
	return 0;
}
