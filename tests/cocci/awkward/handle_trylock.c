/* SPDX-License-Identifier: MIT */
/* memcached's item locks: a striped table of mutexes, taken by hash
   through item_lock(hv)/item_unlock(hv), and by a background sweeper
   through item_trylock(hv), which hands the pthread_mutex_t * it took
   back as a void *; the sweeper keeps it in a local and releases it with
   item_trylock_unlock(void *), which unlocks through a cast.  Every place
   the address goes is a lock call, a test or such a function, so the
   table is converted: the trylock and its unlocks run in place (held),
   the plain item_lock() sections are delegated. */
/* expect: held trylock */
/* expect: transformed */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 2000
#define NLOCKS 8
#define NITEMS 32

static pthread_mutex_t *item_locks;
static long items[NITEMS];
static long swept, busy;

static void item_lock(uint32_t hv)
{
	pthread_mutex_lock(&item_locks[hv % NLOCKS]);
}

static void item_unlock(uint32_t hv)
{
	pthread_mutex_unlock(&item_locks[hv % NLOCKS]);
}

void *item_trylock(uint32_t hv)
{
	pthread_mutex_t *lock = &item_locks[hv % NLOCKS];
	if (pthread_mutex_trylock(lock) == 0) {
		return lock;
	}
	return NULL;
}

void item_trylock_unlock(void *lock)
{
	pthread_mutex_unlock((pthread_mutex_t *) lock);
}

static void bump(uint32_t hv, long by)
{
	item_lock(hv);
	items[hv % NITEMS] += by;
	item_unlock(hv);
}

/* The sweeper moves one unit from each item to the next one of the same
   stripe, when it gets the stripe's lock; the total never changes. */
static void sweep(void)
{
	void *hold_lock = NULL;
	uint32_t hv;

	for (hv = 0; hv < NITEMS; hv++) {
		if ((hold_lock = item_trylock(hv)) == NULL) {
			busy++;
			continue;
		}
		if (items[hv] > 0 && hv + NLOCKS < NITEMS) {
			items[hv]--;
			items[hv + NLOCKS]++;
		}
		swept++;
		item_trylock_unlock(hold_lock);
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++)
		bump((uint32_t)(i * 7 + id), 1);
	return NULL;
}

static void *sweeper(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 200; i++)
		sweep();
	return NULL;
}

int main(void)
{
	pthread_t t[NT + 1];
	long i, sum = 0;

	item_locks = calloc(NLOCKS, sizeof(pthread_mutex_t));
	if (!item_locks)
		return 1;
	for (i = 0; i < NLOCKS; i++)
		pthread_mutex_init(&item_locks[i], NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_create(&t[NT], NULL, sweeper, NULL);
	for (i = 0; i <= NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NITEMS; i++)
		sum += items[i];
	printf("sum %ld (want %d) sweeps %ld\n", sum, NT * IT,
	       swept + busy);
	for (i = 0; i < NLOCKS; i++)
		pthread_mutex_destroy(&item_locks[i]);
	free(item_locks);
	return sum == NT * IT ? 0 : 1;
}
