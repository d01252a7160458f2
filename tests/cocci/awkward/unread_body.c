/* SPDX-License-Identifier: MIT */
/* dnsmasq's util.c shape: a mixing macro that brings its own ';', used
   several times on one line inside braces, `{ MIX(0, 5) MIX(1, 7) }`.
   Nothing marks where one statement ends and the next begins, so the
   section of the function that uses it is left in place on the lock
   word; the other function's section is extracted as usual. */
/* expect: held cannot cut the statements of stir() */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 300

#define MIX(i, b) x = t[i] += ((x ^ seed[i]) + sum) ^ ((x << b) | (x >> (32 - b)));

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned seed[4] = { 0x9e3779b9u, 0x7f4a7c15u, 0x85ebca6bu, 0xc2b2ae35u };
static unsigned pool[4];
static unsigned long stirred;

static void stir(unsigned in)
{
	unsigned t[4], x = in, sum = 0;
	int r, i;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < 4; i++)
		t[i] = pool[i] ^ in;
	for (r = 0; r < 4; r++) {
		sum += 0x9e3779b9u;
		MIX(0, 5) MIX(1, 7) MIX(2, 9) MIX(3, 13)
	}
	for (i = 0; i < 4; i++)
		pool[i] = t[i];
	pthread_mutex_unlock(&pool_lock);
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(unsigned long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		stir(id * 1000u + (unsigned)r);
		pthread_mutex_lock(&count_lock);
		stirred++;
		pthread_mutex_unlock(&count_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	unsigned long k;
	unsigned check = 0;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)(k + 1));
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	/* The pool's value depends on the order of the stirs: print only
	   what does not. */
	for (k = 0; k < 4; k++)
		check |= pool[k];
	printf("stirred %lu, pool %s\n", stirred, check ? "mixed" : "empty");
	return stirred == WORKERS * ROUNDS ? 0 : 1;
}
