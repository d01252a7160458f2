/* SPDX-License-Identifier: MIT */
/* The generation number is read under gen_lock inside a section of
   table_lock; the value read is used after gen_lock is released (still
   under table_lock) and again after table_lock is released. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NTHR 6
#define LOOPS 4000

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gen_lock = PTHREAD_MUTEX_INITIALIZER;
static long generation;
static long table[64];
static long checksum;

static long insert(int slot)
{
	long gen, old;

	pthread_mutex_lock(&table_lock);
	old = table[slot];
	pthread_mutex_lock(&gen_lock);
	gen = ++generation;
	pthread_mutex_unlock(&gen_lock);
	table[slot] = gen;
	checksum += gen - old;
	pthread_mutex_unlock(&table_lock);
	return gen;
}

static void *run(void *p)
{
	long mine = 0, last = 0, g;
	int i, me = (int)(long)p;

	for (i = 0; i < LOOPS; i++) {
		g = insert((me * 7 + i) % 64);
		if (g <= last) {
			fprintf(stderr, "generation went back: %ld after %ld\n",
				g, last);
			return (void *)1;
		}
		last = g;
		mine++;
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t th[NTHR];
	long total = 0, sum = 0;
	void *r;
	int i;

	for (i = 0; i < NTHR; i++)
		pthread_create(&th[i], NULL, run, (void *)(long)i);
	for (i = 0; i < NTHR; i++) {
		pthread_join(th[i], &r);
		total += (long)r;
	}
	for (i = 0; i < 64; i++)
		sum += table[i];
	printf("inserts %ld generation %ld consistent %d\n", total,
	       generation, sum == checksum);
	return total == NTHR * LOOPS && generation == total &&
			       sum == checksum
		       ? 0
		       : 1;
}
