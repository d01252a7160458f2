/* SPDX-License-Identifier: MIT */
/* Items with a mutex kept in a generic list of `void *` slots and freed
   by the list's destroy callback, `free` itself (GLib's
   g_hash_table_new_full(..., g_free) shape), never destroyed.  The
   items' memory is given back where their type is not known, so their
   lock stays POSIX: converted, each freed item leaked the liblock
   lock's memory. */
/* expect: refused never destroyed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define ITEMS 2000

struct list {
	void **slots;
	int n;
	void (*destroy)(void *);
};

struct item {
	pthread_mutex_t mu;
	long hits;
};

static struct list lst;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITEMS; i++) {
		struct item *it = lst.slots[i];

		pthread_mutex_lock(&it->mu);
		it->hits++;
		pthread_mutex_unlock(&it->mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long total = 0;

	lst.slots = calloc(ITEMS, sizeof(*lst.slots));
	lst.destroy = free;
	if (lst.slots == NULL)
		return 1;
	for (int i = 0; i < ITEMS; i++) {
		struct item *it = calloc(1, sizeof(*it));

		if (it == NULL)
			return 1;
		pthread_mutex_init(&it->mu, NULL);
		lst.slots[lst.n++] = it;
	}
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < lst.n; i++) {
		total += ((struct item *)lst.slots[i])->hits;
		lst.destroy(lst.slots[i]);
	}
	free(lst.slots);
	printf("hits %ld\n", total);
	return 0;
}
