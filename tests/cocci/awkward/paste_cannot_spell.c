/* SPDX-License-Identifier: MIT */
/* expect: held locked through parameter 'lk' of total_add_locked() */
/* A token-pasting macro, `d_ ## f`, can only make names that start with
   d_ (xfsprogs' DOFF() in db/dquot.c).  It was read as naming any
   function whose name holds "d_" (total_ad"d_"locked), so the helper's
   parameter was not followed and its lock stayed POSIX. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

struct disk_rec {
	int d_count;
	int d_flags;
};

#define DOFF(f) ((int)offsetof(struct disk_rec, d_##f))

static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void total_add_locked(pthread_mutex_t *lk, long v)
{
	pthread_mutex_lock(lk);
	total += v;
	pthread_mutex_unlock(lk);
}

static void *worker(void *arg)
{
	for (long i = 0; i < 20000; i++)
		total_add_locked(&total_mu, (long)arg);
	return NULL;
}

int main(void)
{
	pthread_t tid[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	printf("total %ld, count at %d, flags at %d\n", total, DOFF(count),
	       DOFF(flags));
	return 0;
}
