/* SPDX-License-Identifier: MIT */
/* An init wrapper that aborts when pthread_mutex_init() fails: liblock's
   init can fail too (memory, the algorithm asked for), so the check must
   stay with the call.  The wrapper is an init function (its parameter
   only reaches pthread_mutex_init()): it stays, its parameter becomes
   liblock_lock_t * and its call liblock_init(), under the same check.
   The other lock, used through the same lock wrappers, is converted. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 500

struct stats {
	pthread_mutex_t mu;
	long hits, misses;
};

static struct stats st;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[16];

static void lock(pthread_mutex_t *m)
{
	if (pthread_mutex_lock(m))
		abort();
}

static void unlock(pthread_mutex_t *m)
{
	if (pthread_mutex_unlock(m) != 0)
		abort();
}

static void init_lock(pthread_mutex_t *m)
{
	if (pthread_mutex_init(m, NULL) != 0)
		abort();
}

static void count(struct stats *s, int hit)
{
	lock(&s->mu);
	if (hit)
		s->hits++;
	else
		s->misses++;
	unlock(&s->mu);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		count(&st, (i + id) % 3 != 0);
		lock(&table_lock);
		table[(i + id) % 16] += id + 1;
		unlock(&table_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	init_lock(&st.mu);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 16; i++)
		sum += table[i];
	printf("hits %ld misses %ld sum %ld\n", st.hits, st.misses, sum);
	pthread_mutex_destroy(&st.mu);
	return st.hits + st.misses == NT * IT && sum == 10 * IT ? 0 : 1;
}
