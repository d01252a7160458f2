/* SPDX-License-Identifier: MIT */
/* A trylock helper that turns pthread's answer around: it returns false
   when the mutex is busy and true once it holds it, as many "try" helpers
   do.  Busy is no failure of the call: the branch that gives false is
   not a check that never runs (a lock or unlock helper's `return false`
   on failure is: `awkward/wrapper_checked_gives_up.c`), so the helper is
   no trylock wrapper; its own section stays in place on the lock word,
   where liblock_trylock() answers as pthread does. */
/* expect: held trylock section: no unlock of m follows */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#define NT 4
#define IT 2000

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static long taken, skipped_total;

static bool try_take(pthread_mutex_t *m)
{
	if (pthread_mutex_trylock(m))
		return false;
	return true;
}

static void *worker(void *arg)
{
	long i, skipped = 0;

	(void)arg;
	for (i = 0; i < IT; i++) {
		if (try_take(&slot_lock)) {
			taken++;
			pthread_mutex_unlock(&slot_lock);
		} else {
			skipped++;
		}
	}
	pthread_mutex_lock(&slot_lock);
	skipped_total += skipped;
	pthread_mutex_unlock(&slot_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	/* how many were skipped depends on the interleaving: only the sum */
	printf("attempts %ld\n", taken + skipped_total);
	return taken + skipped_total == (long)NT * IT && taken > 0 ? 0 : 1;
}
