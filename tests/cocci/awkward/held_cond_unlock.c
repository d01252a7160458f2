/* SPDX-License-Identifier: MIT */
/* An LRU bump that unlocks only when asked to (lru_bump(..., 1)); with 0
   the caller keeps the lock to do more and unlocks itself: a conditional
   unlock (held).  Reading the list length is an ordinary section of the
   same lock (delegated). */
/* expect: held unlocked inside a statement nested below */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8
#define ROUNDS 3000
#define NSLOTS 32

static pthread_mutex_t lru_lock = PTHREAD_MUTEX_INITIALIZER;
static int lru[NSLOTS]; /* lru[0] is the most recent */
static long bumps, extra;

static void lru_bump(int v, int unlock)
{
	int i, j;

	pthread_mutex_lock(&lru_lock);
	for (i = 0; i < NSLOTS - 1 && lru[i] != v; i++)
		;
	for (j = i; j > 0; j--)
		lru[j] = lru[j - 1];
	lru[0] = v;
	bumps++;
	if (unlock)
		pthread_mutex_unlock(&lru_lock);
}

static int lru_head(void)
{
	int v;

	pthread_mutex_lock(&lru_lock);
	v = lru[0];
	pthread_mutex_unlock(&lru_lock);
	return v;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, i;
	long heads = 0;

	for (i = 0; i < ROUNDS; i++) {
		int v = (i + id) % (NSLOTS + 5);

		if (i % 3 == 0) {
			lru_bump(v, 0);
			extra++; /* still under lru_lock */
			if (lru[0] != v)
				extra = -1000000;
			pthread_mutex_unlock(&lru_lock);
		} else {
			lru_bump(v, 1);
		}
		if (i % 64 == 0)
			heads += lru_head() >= 0;
	}
	return (void *)heads;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long heads = 0, i;
	int k, seen[NSLOTS + 5] = { 0 };

	for (k = 0; k < NSLOTS; k++)
		lru[k] = k;
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		heads += (long)r;
	}
	for (k = 0; k < NSLOTS; k++)
		if (seen[lru[k]]++)
			return 2; /* a value twice: the list was torn */
	printf("bumps %ld extra %ld heads %ld\n", bumps, extra, heads);
	return bumps == NTHREADS * ROUNDS &&
			       extra == NTHREADS * ((ROUNDS + 2) / 3) &&
			       heads == NTHREADS * ((ROUNDS + 63) / 64) ?
		       0 :
		       1;
}
