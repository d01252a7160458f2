/* SPDX-License-Identifier: MIT */
/* Striped locks sized at run time and named by pointer arithmetic:
   `locks + s` (and `s + locks`) for a global array allocated in main(),
   and `t->stripes + (h & mask)` for a table's.  Each is the element
   `&locks[s]` would name, so both locks convert and every section is
   delegated (`s + locks` once named the int `s`). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 4000

static pthread_mutex_t *locks;
static int nlocks;
static long *vals;

struct table {
	unsigned mask;
	pthread_mutex_t *stripes;
	long hits[16];
};

static struct table table = { 15, NULL, { 0 } };

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		int s = (int)((i + id) % nlocks);
		unsigned h = (unsigned)i * 2654435761u;

		pthread_mutex_lock(locks + s);
		vals[s]++;
		pthread_mutex_unlock(locks + s);
		pthread_mutex_lock(s + locks);
		vals[s] += 2;
		pthread_mutex_unlock(s + locks);
		pthread_mutex_lock(table.stripes + (h & table.mask));
		table.hits[h & table.mask]++;
		pthread_mutex_unlock(table.stripes + (h & table.mask));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NT];
	long sum = 0, hits = 0;

	nlocks = argc > 1 ? atoi(argv[1]) : 6;
	locks = malloc((size_t)nlocks * sizeof(*locks));
	vals = calloc((size_t)nlocks, sizeof(long));
	table.stripes = calloc(table.mask + 1, sizeof(pthread_mutex_t));
	if (!locks || !vals || !table.stripes)
		return 1;
	for (int i = 0; i < nlocks; i++)
		pthread_mutex_init(&locks[i], NULL);
	for (unsigned i = 0; i <= table.mask; i++)
		pthread_mutex_init(&table.stripes[i], NULL);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < nlocks; i++) {
		sum += vals[i];
		pthread_mutex_destroy(&locks[i]);
	}
	for (unsigned i = 0; i <= table.mask; i++) {
		hits += table.hits[i];
		pthread_mutex_destroy(&table.stripes[i]);
	}
	printf("%ld %ld\n", sum, hits);
	if (sum != 3L * NT * IT)
		return 1;
	free(locks);
	free(vals);
	free(table.stripes);
	return 0;
}
