/* SPDX-License-Identifier: MIT */
/* expect: held #undef SCALE at line 28 in add_scaled() before the section */
/* A function that redefines a macro at the top of its body, for itself
   (a table of weights tuned per function), and uses it in its section
   through another macro.  The extracted function would go before the
   function, where SCALE is still the file's: the section stays in place.
   The section of add_plain() uses neither and moves. */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 4
#define ROUNDS 20000
#define SCALE 1
#define SCALED(x) ((x) * SCALE)

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static long total, plain;

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
	pthread_mutex_lock(&lk);
	total += SCALED(n);
	pthread_mutex_unlock(&lk);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		add_scaled(1);
		add_plain(1);
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
	printf("total=%ld plain=%ld\n", total, plain);
	return total == 10L * NWORKERS * ROUNDS &&
	       plain == 1L * NWORKERS * ROUNDS ? 0 : 1;
}
