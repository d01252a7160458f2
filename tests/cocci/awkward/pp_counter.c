/* SPDX-License-Identifier: MIT */
/* expect: held __COUNTER__ in the section and before it in stamp() */
/* __COUNTER__ gives each use the next number in the order of the file.
   stamp() takes one before its section and one inside it: extracted, the
   section's use would come first in the file and the two would swap, so
   the section stays in place.  serial()'s section is the only user in its
   function and moves (its number is then taken before stamp()'s, as the
   function comes first in the file either way). */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 3
#define ROUNDS 10000

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static int first, second, only;
static long count;

static void serial(void)
{
	pthread_mutex_lock(&lk);
	only = __COUNTER__;
	count++;
	pthread_mutex_unlock(&lk);
}

static void stamp(void)
{
	int mine = __COUNTER__;

	pthread_mutex_lock(&lk);
	first = mine;
	second = __COUNTER__;
	count++;
	pthread_mutex_unlock(&lk);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		serial();
		stamp();
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
	printf("only=%d first=%d second=%d count=%ld\n", only, first, second,
	       count);
	return only == 0 && first == 1 && second == 2 &&
	       count == 2L * NWORKERS * ROUNDS ? 0 : 1;
}
