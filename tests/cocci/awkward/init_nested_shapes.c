/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Static initialisers that reach a mutex through more than one brace
   level, in the shapes C allows: a structure definition with its
   variable (struct outer { ... } o = ...), a nested named member by
   position and by designators, an array of mutexes as a member, a union
   member padding the mutex to a cache line, and array elements given by
   index designators ([i] = { .mu = ... }).  Each field becomes
   liblock_lock_t, so each initialiser must become liblock's: one left
   behind would not compile (braces around a scalar), and the tool would
   write nothing. */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 3
#define ROUNDS 2000

struct inner {
	pthread_mutex_t mu;
	long n;
};

struct outer {
	int tag;
	struct inner in;
} pos = { 1, { PTHREAD_MUTEX_INITIALIZER, 0 } },
  des = { .tag = 2, .in = { .n = 0, .mu = PTHREAD_MUTEX_INITIALIZER } };

struct two {
	pthread_mutex_t mus[2];
	long n[2];
} tw = { { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER }, { 0, 0 } };

union padded_lock {
	pthread_mutex_t mu;
	char pad[128];
};

static struct padded {
	union padded_lock l;
	long n;
} pd = { { PTHREAD_MUTEX_INITIALIZER }, 0 };

struct queue {
	pthread_mutex_t mu;
	long n;
};

static struct queue qs[3] = {
	[0] = { .mu = PTHREAD_MUTEX_INITIALIZER },
	[2] = { .n = 5, .mu = PTHREAD_MUTEX_INITIALIZER },
	[1] = { PTHREAD_MUTEX_INITIALIZER, 7 },
};

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&pos.in.mu);
		pos.in.n += pos.tag;
		pthread_mutex_unlock(&pos.in.mu);
		pthread_mutex_lock(&des.in.mu);
		des.in.n += des.tag;
		pthread_mutex_unlock(&des.in.mu);
		pthread_mutex_lock(&tw.mus[i & 1]);
		tw.n[i & 1] += id;
		pthread_mutex_unlock(&tw.mus[i & 1]);
		pthread_mutex_lock(&pd.l.mu);
		pd.n++;
		pthread_mutex_unlock(&pd.l.mu);
		pthread_mutex_lock(&qs[i % 3].mu);
		qs[i % 3].n++;
		pthread_mutex_unlock(&qs[i % 3].mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];

	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("pos %ld des %ld tw %ld %ld pd %ld qs %ld %ld %ld\n",
	       pos.in.n, des.in.n, tw.n[0], tw.n[1], pd.n, qs[0].n, qs[1].n,
	       qs[2].n);
	return 0;
}
