/* SPDX-License-Identifier: MIT */
/* Knot DNS's rrl_hash(): under the table's lock it picks a bucket and
   calls rrl_lock(), pthread_mutex_lock(tbl->lk + id), and the caller
   releases the bucket lock after the section.
   Delegated, the section took the bucket lock on the server thread, and
   the caller's unlock was not its owner's (undefined for a mutex; with
   an error-checking one every unlock failed, and the buckets stopped
   excluding anything).  A section whose calls take a mutex without
   releasing it stays in place. */
/* expect: held unlock in another function */
/* expect: held bucket_lock() */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define NB 4

struct table {
	pthread_mutex_t ll;
	pthread_mutex_t lk[NB];
	long sum[NB];
	unsigned next;
};

static struct table tbl = { .ll = PTHREAD_MUTEX_INITIALIZER };
static long unlock_errors;

static void bucket_lock(struct table *t, unsigned id)
{
	pthread_mutex_lock(t->lk + id);
}

static unsigned pick_bucket(struct table *t)
{
	unsigned id;

	pthread_mutex_lock(&t->ll);
	id = t->next++ % NB;
	bucket_lock(t, id);
	pthread_mutex_unlock(&t->ll);
	return id;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		unsigned id = pick_bucket(&tbl);

		tbl.sum[id]++;
		if (pthread_mutex_unlock(&tbl.lk[id]) != 0)
			__atomic_add_fetch(&unlock_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	long total = 0;

	for (int i = 0; i < NB; i++)
		pthread_mutex_init(&tbl.lk[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NB; i++)
		total += tbl.sum[i];
	printf("sum %ld unlock errors %ld\n", total, unlock_errors);
	return total == 400 && unlock_errors == 0 ? 0 : 1;
}
