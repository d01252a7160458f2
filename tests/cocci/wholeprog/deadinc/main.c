/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "guard.h"

struct tally {
	pthread_mutex_t mu;
	unsigned long hits, misses;
};

static struct tally tally = {PTHREAD_MUTEX_INITIALIZER, 0, 0};

static struct {
	table_lock_t lock;
	int slots[8];
} table = {PTHREAD_RWLOCK_INITIALIZER, {0}};

static void *worker(void *arg)
{
	unsigned long seed = (unsigned long)arg;

	for (int i = 0; i < 50000; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		guard_take(&tally.mu);
		if ((seed >> 33) % 3)
			tally.hits++;
		else
			tally.misses++;
		guard_give(&tally.mu);
		if (i % 1000 == 0) {
			table_write(&table.lock);
			table.slots[(seed >> 40) % 8]++;
			table_done(&table.lock);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	unsigned long sum;

	for (unsigned long i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	guard_take(&tally.mu);
	sum = tally.hits + tally.misses;
	guard_give(&tally.mu);
	table_read(&table.lock);
	for (int i = 0; i < 8; i++)
		sum += (unsigned long)table.slots[i];
	table_done(&table.lock);
	printf("%lu %lu %lu\n", tally.hits, tally.misses, sum);
	return 0;
}
