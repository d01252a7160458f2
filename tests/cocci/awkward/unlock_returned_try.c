/* SPDX-License-Identifier: MIT */
/* expect: held the trylock's shapes do not extract */
/* A statistics page that is skipped when the table is busy: the section
   under a trylock ends in `return pthread_mutex_unlock(...)`, and an
   early exit of another trylock section does too.  The function must
   still return what it returned: 0 from the unlock, -1 when busy. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits, pages, skipped_big;

static int stats_page(long *out)
{
	if (pthread_mutex_trylock(&table_lock) == 0) {
		*out = hits;
		pages++;
		return pthread_mutex_unlock(&table_lock);
	}
	return -1;
}

static int stats_bump(long n)
{
	if (pthread_mutex_trylock(&table_lock) != 0)
		return -1;
	if (n > 1000) {
		skipped_big++;
		return pthread_mutex_unlock(&table_lock);
	}
	hits += n;
	pthread_mutex_unlock(&table_lock);
	return 7;
}

static void *worker(void *arg)
{
	long seen = 0, r = 0, i;

	(void)arg;
	for (i = 0; i < 20000; i++) {
		while ((r = stats_bump(i % 1500)) < 0)
			;
		while (stats_page(&seen) != 0)
			;
	}
	return (void *)r;
}

int main(void)
{
	pthread_t th[3];
	long i;

	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("hits %ld pages %ld big %ld\n", hits, pages, skipped_big);
	return pages == 60000 ? 0 : 1;
}
