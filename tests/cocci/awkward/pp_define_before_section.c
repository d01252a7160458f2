/* SPDX-License-Identifier: MIT */
/* expect: held #undef SCALE at line 44 in add_tuned() before the section, which uses SCALE, with #if there */
/* Functions that redefine a macro at the top of their body, for
   themselves (weights tuned per function), and use it in their section
   through another macro.  The extracted function goes before the
   function, where SCALE is still the file's: add_scaled()'s #undef and
   #define are replayed there (between push_macro and pop_macro), and its
   section moves.  add_tuned() redefines SCALE only #ifdef TUNED, a
   branch the tool does not follow there: its section stays in place.
   The section of add_plain() uses the file's SCALE and moves. */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 4
#define ROUNDS 20000
#define SCALE 1
#define SCALED(x) ((x) * SCALE)
#define TUNED 1

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static long total, plain, tuned;

static void add_plain(long n)
{
	pthread_mutex_lock(&lk);
	plain += SCALED(n);
	pthread_mutex_unlock(&lk);
}

static void add_scaled(long n)
{
#undef SCALE
#define SCALE 10
	long twice = 2 * n;

	pthread_mutex_lock(&lk);
	total += SCALED(twice) / 2;
	pthread_mutex_unlock(&lk);
}

static void add_tuned(long n)
{
#ifdef TUNED
#undef SCALE
#define SCALE 100
#endif
	pthread_mutex_lock(&lk);
	tuned += SCALED(n);
	pthread_mutex_unlock(&lk);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		add_scaled(1);
		add_plain(1);
		add_tuned(1);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("total=%ld plain=%ld tuned=%ld\n", total, plain, tuned);
	return total == 10L * NWORKERS * ROUNDS &&
	       plain == 1L * NWORKERS * ROUNDS &&
	       tuned == 100L * NWORKERS * ROUNDS ? 0 : 1;
}
