/* SPDX-License-Identifier: MIT */
/* A striped hash table: the bucket's lock is found through a pointer
   local (l = &locks[hash % NLOCKS]) in one function and through a
   struct pointer local in another. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 400
#define NLOCKS 8
#define NBUCKETS 32

struct bucket {
	pthread_mutex_t lock;
	long items;
};

static pthread_mutex_t locks[NLOCKS];
static long counts[NBUCKETS];
static struct bucket buckets[NLOCKS];

static unsigned hash(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void count_key(const char *key)
{
	unsigned h = hash(key);
	pthread_mutex_t *l = &locks[h % NLOCKS];

	pthread_mutex_lock(l);
	counts[h % NBUCKETS]++;
	pthread_mutex_unlock(l);
}

static void bucket_add(unsigned h, long n)
{
	struct bucket *b = &buckets[h % NLOCKS];

	pthread_mutex_lock(&b->lock);
	b->items += n;
	pthread_mutex_unlock(&b->lock);
}

static void *worker(void *arg)
{
	char key[32];
	int i;

	for (i = 0; i < IT; i++) {
		snprintf(key, sizeof(key), "k%ld-%d", (long)arg, i % 50);
		count_key(key);
		bucket_add(hash(key), 1);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0, items = 0;

	for (i = 0; i < NLOCKS; i++) {
		pthread_mutex_init(&locks[i], NULL);
		pthread_mutex_init(&buckets[i].lock, NULL);
	}
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NBUCKETS; i++)
		sum += counts[i];
	for (i = 0; i < NLOCKS; i++)
		items += buckets[i].items;
	printf("sum %ld items %ld\n", sum, items);
	return sum == NT * IT && items == NT * IT ? 0 : 1;
}
