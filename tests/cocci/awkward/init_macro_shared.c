/* SPDX-License-Identifier: MIT */
/* One project-wide initialiser macro for every static mutex, as a
 * portability header spells it (rrdtool's src/mutex.h: `#define
 * MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER`, used in three files).
 * Each use initialises one mutex, so the macro's body becomes liblock's
 * initialiser for all of them, and the three locks convert together.
 * (They were refused: "macro ... initialises several mutexes".) */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define lock_type pthread_mutex_t
#define LOCK_INIT PTHREAD_MUTEX_INITIALIZER

static lock_type hits_lock = LOCK_INIT;
static lock_type misses_lock = LOCK_INIT;
static long hits, misses;

struct cache {
	lock_type guard;
	long entries[8];
};

static struct cache table = {LOCK_INIT, {0}};

static void lookup(long key)
{
	long *slot = &table.entries[key % 8];
	int found;

	pthread_mutex_lock(&table.guard);
	found = *slot == key;
	*slot = key;
	pthread_mutex_unlock(&table.guard);
	if (found) {
		pthread_mutex_lock(&hits_lock);
		hits++;
		pthread_mutex_unlock(&hits_lock);
	} else {
		pthread_mutex_lock(&misses_lock);
		misses++;
		pthread_mutex_unlock(&misses_lock);
	}
}

static void *client(void *arg)
{
	long seed = (long)arg;

	for (int i = 0; i < 20000; i++)
		lookup((seed * 7 + i) % 5);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long e = 0;

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, client, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 8; i++)
		e += table.entries[i] >= 0;
	printf("lookups %ld slots %ld\n", hits + misses, e);
	return hits + misses == 60000 ? 0 : 1;
}
