/* SPDX-License-Identifier: MIT */
/* A hand-made barrier: a generation counter, a cond var, broadcast. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define ROUNDS 50

static pthread_mutex_t bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_cv = PTHREAD_COND_INITIALIZER;
static int arrived;
static unsigned gen;
static long work[ROUNDS];

static void barrier_wait(void)
{
	unsigned my_gen;

	pthread_mutex_lock(&bar_lock);
	my_gen = gen;
	if (++arrived == NT) {
		arrived = 0;
		gen++;
		pthread_cond_broadcast(&bar_cv);
		pthread_mutex_unlock(&bar_lock);
		return;
	}
	while (my_gen == gen)
		pthread_cond_wait(&bar_cv, &bar_lock);
	pthread_mutex_unlock(&bar_lock);
}

static void *worker(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < ROUNDS; r++) {
		__atomic_fetch_add(&work[r], 1, __ATOMIC_RELAXED);
		barrier_wait();
		if (__atomic_load_n(&work[r], __ATOMIC_RELAXED) != NT)
			return (void *)1;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("gen %u bad %ld\n", gen, bad);
	return gen == ROUNDS && bad == 0 ? 0 : 1;
}
