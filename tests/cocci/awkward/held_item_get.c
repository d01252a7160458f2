/* SPDX-License-Identifier: MIT */
/* Striped item locks, memcached style: item_get_locked() returns the item
   with its stripe's lock held and item_unlock() releases it later (held
   sections); counting the items of a stripe is an ordinary section of the
   same locks (delegated). */
/* expect: held unlock in another function */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 6
#define ROUNDS 4000
#define NITEMS 64
#define NSTRIPES 8

typedef struct item {
	unsigned key;
	long value;
	unsigned refs;
} item;

static pthread_mutex_t item_locks[NSTRIPES];
static item items[NITEMS];

static unsigned hash(unsigned key)
{
	return (key * 2654435761u) >> 7;
}

static item *item_get_locked(unsigned key)
{
	unsigned hv = hash(key);

	pthread_mutex_lock(&item_locks[hv % NSTRIPES]);
	return &items[key % NITEMS];
}

static void item_unlock(unsigned key)
{
	pthread_mutex_unlock(&item_locks[hash(key) % NSTRIPES]);
}

static long stripe_total(unsigned stripe)
{
	long sum = 0;
	unsigned i;

	pthread_mutex_lock(&item_locks[stripe]);
	for (i = 0; i < NITEMS; i++)
		if (hash(i) % NSTRIPES == stripe)
			sum += items[i].value;
	pthread_mutex_unlock(&item_locks[stripe]);
	return sum;
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(unsigned long)arg, i;
	long seen = 0;

	for (i = 0; i < ROUNDS; i++) {
		unsigned key = (i * 7 + id) % NITEMS;
		item *it = item_get_locked(key);

		it->value += 2;
		it->refs++;
		it->value--;
		item_unlock(key);
		if (i % 100 == 0)
			seen += stripe_total(i % NSTRIPES) >= 0;
	}
	return (void *)seen;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long total = 0, refs = 0, seen = 0;
	unsigned i;

	for (i = 0; i < NSTRIPES; i++)
		pthread_mutex_init(&item_locks[i], NULL);
	for (i = 0; i < NITEMS; i++)
		items[i].key = i;
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(unsigned long)i);
	for (i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		seen += (long)r;
	}
	for (i = 0; i < NSTRIPES; i++)
		total += stripe_total(i);
	for (i = 0; i < NITEMS; i++)
		refs += items[i].refs;
	printf("total %ld refs %ld seen %ld\n", total, refs, seen);
	return total == NTHREADS * ROUNDS && refs == NTHREADS * ROUNDS &&
			       seen == NTHREADS * (ROUNDS / 100) ?
		       0 :
		       1;
}
