/* SPDX-License-Identifier: MIT */
/* memcached extstore-style counters: STAT_ADD() and STAT_SUB() take the
   engine's stats mutex, update one counter and release it, all in the
   macro's body; other functions also lock the same field directly.  The
   macro's expansions are held sections (its #define calls liblock), the
   direct ones delegated. */
/* expect: held in the body of macro STAT_ADD */
/* expect: held in the body of macro STAT_SUB */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

struct engine {
	pthread_mutex_t stats_mu;
	struct {
		long allocs, frees, reads;
	} st;
	long pages;
};

#define STAT_ADD(eng, field, n)                      \
	{                                                \
		pthread_mutex_lock(&(eng)->stats_mu);    \
		(eng)->st.field += (n);                  \
		pthread_mutex_unlock(&(eng)->stats_mu);  \
	}

#define STAT_SUB(eng, field, n) do {                 \
		pthread_mutex_lock(&eng->stats_mu);      \
		eng->st.field -= n;                      \
		pthread_mutex_unlock(&eng->stats_mu);    \
	} while (0)

static struct engine engines[2];

static void page_alloc(struct engine *e)
{
	__atomic_fetch_add(&e->pages, 1, __ATOMIC_RELAXED);
	STAT_ADD(e, allocs, 1);
}

static void page_free(struct engine *e)
{
	__atomic_fetch_sub(&e->pages, 1, __ATOMIC_RELAXED);
	STAT_ADD(e, frees, 2);
	STAT_SUB(e, frees, 1);
}

static void page_read(struct engine *e, long n)
{
	if (n > 0) {
		STAT_ADD(e, reads, n);
	} else
		STAT_SUB(e, reads, -n);
}

static long snapshot(struct engine *e)
{
	long s;

	pthread_mutex_lock(&e->stats_mu);
	s = e->st.allocs * 1000000 + e->st.frees * 1000 + e->st.reads;
	pthread_mutex_unlock(&e->stats_mu);
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		struct engine *e = &engines[(i + id) % 2];

		page_alloc(e);
		page_read(e, i % 3 - 1);
		page_free(e);
		(void)snapshot(e);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < 2; i++)
		pthread_mutex_init(&engines[i].stats_mu, NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++)
		printf("engine %ld: %ld pages, snapshot %ld\n", i,
		       engines[i].pages, snapshot(&engines[i]));
	for (i = 0; i < 2; i++)
		pthread_mutex_destroy(&engines[i].stats_mu);
	return 0;
}
