/* SPDX-License-Identifier: MIT */
/* Functions that look like the checked lock wrappers of
 * wrapper_check_shapes.c but do more than lock: one counts its calls in
 * a global after the lock (a side effect under the lock), one retries
 * the lock when it fails (its check goes on instead of ending the
 * process).  Neither is a wrapper: their own lock calls are held on the
 * lock word (each is a section whose unlock is in another function), and
 * the callers' code between them and the unlock wrapper is no section the
 * tool extracts. */
/* expect: held the lock is not released at the level where it is taken */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct bin {
	pthread_mutex_t mu;
	long items;
};

static long lock_calls;

static void bin_lock_counted(struct bin *b)
{
	int e = pthread_mutex_lock(&b->mu);

	if (__builtin_expect(e != 0, 0))
		abort();
	lock_calls++;
}

static void bin_lock_retry(struct bin *b)
{
	int e = pthread_mutex_lock(&b->mu);

	if (e != 0)
		e = pthread_mutex_lock(&b->mu);
}

static void bin_unlock(struct bin *b)
{
	int e = pthread_mutex_unlock(&b->mu);

	if (__builtin_expect(e != 0, 0))
		abort();
}

static struct bin bins = {PTHREAD_MUTEX_INITIALIZER, 0};

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		bin_lock_counted(&bins);
		bins.items++;
		bin_unlock(&bins);
		bin_lock_retry(&bins);
		bins.items++;
		bin_unlock(&bins);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("items %ld calls %ld\n", bins.items, lock_calls);
	return bins.items == 8000 && lock_calls == 4000 ? 0 : 1;
}
