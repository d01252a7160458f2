/* SPDX-License-Identifier: MIT */
/* Three levels: the journal lock's section takes the index lock, whose
   section takes the page lock, in a branch; then the index lock again at
   the journal section's own level, for a snapshot declared inside that
   nested section and used after it, and a name copied into an array of
   the caller.  Every section is extracted, each calling the one it
   contains. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NWORKERS 5
#define NSTEPS 3000

static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t page_lock = PTHREAD_MUTEX_INITIALIZER;
static long journal_len, index_len, pages;
static long page_hist[8];
static long odd_snaps;

static long journal_step(int n)
{
	long seen = 0, result;
	char who[8];

	pthread_mutex_lock(&journal_lock);
	journal_len++;
	if (n & 1) {
		pthread_mutex_lock(&index_lock);
		index_len += 2;
		seen = index_len;
		pthread_mutex_lock(&page_lock);
		pages++;
		page_hist[pages & 7]++;
		pthread_mutex_unlock(&page_lock);
		pthread_mutex_unlock(&index_lock);
	}
	pthread_mutex_lock(&index_lock);
	long snap = index_len;
	strcpy(who, "idx");
	pthread_mutex_unlock(&index_lock);
	result = snap - seen;
	odd_snaps += snap & 1;
	journal_len += who[0] == 'i';
	pthread_mutex_unlock(&journal_lock);
	return result;
}

static void *worker(void *p)
{
	long bad = 0;
	int i;

	(void)p;
	for (i = 0; i < NSTEPS; i++)
		if ((i & 1) && journal_step(i) != 0)
			bad++;
		else if (!(i & 1))
			journal_step(i);
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NWORKERS];
	long i, hist = 0, bad = 0;
	void *r;

	for (i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NWORKERS; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	for (i = 0; i < 8; i++)
		hist += page_hist[i];
	printf("journal %ld index %ld pages %ld hist %ld bad %ld odd %ld\n",
	       journal_len, index_len, pages, hist, bad, odd_snaps);
	return journal_len == 2 * NWORKERS * NSTEPS &&
			       index_len == NWORKERS * NSTEPS &&
			       pages == NWORKERS * NSTEPS / 2 && hist == pages &&
			       bad == 0 && odd_snaps == 0
		       ? 0
		       : 1;
}
