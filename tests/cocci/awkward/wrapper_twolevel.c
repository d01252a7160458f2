/* SPDX-License-Identifier: MIT */
/* The mutex passed through two levels of wrappers: table_lock(t) calls
   xlock(&t->mu), which calls pthread with its parameter. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 500

struct table {
	pthread_mutex_t mu;
	int n;
	int slots[64];
};

static void xlock(pthread_mutex_t *mp)
{
	if (pthread_mutex_lock(mp) != 0)
		abort();
}

static void xunlock(pthread_mutex_t *mp)
{
	if (pthread_mutex_unlock(mp) != 0)
		abort();
}

static void table_lock(struct table *t)
{
	xlock(&t->mu);
}

static void table_unlock(struct table *t)
{
	xunlock(&t->mu);
}

static struct table tab = { PTHREAD_MUTEX_INITIALIZER, 0, { 0 } };

static int table_add(struct table *t, int v)
{
	int slot;

	table_lock(t);
	slot = t->n % 64;
	t->slots[slot] += v;
	t->n++;
	table_unlock(t);
	return slot;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	long i, s = 0;

	for (i = 0; i < IT; i++)
		s += table_add(&tab, (int)id + 1) >= 0;
	return (void *)s;
}

int main(void)
{
	pthread_t t[NT];
	long i, total = 0, sum = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		total += (long)r;
	}
	for (i = 0; i < 64; i++)
		sum += tab.slots[i];
	printf("n %d total %ld sum %ld\n", tab.n, total, sum);
	return tab.n == NT * IT && sum == 10 * IT ? 0 : 1;
}
