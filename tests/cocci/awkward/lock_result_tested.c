/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Careful code checks what pthread_mutex_lock() returns: an inventory
   that reports a failed lock through errno, one that aborts, one that
   keeps the code in a local first, one that runs the section in the
   success branch (with an else, and alone: the whole if statement), and
   one behind a branch hint (unlikely()).  Locking a plain mutex gives 0: every section moves,
   its failure code stays where it was. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 4000
#define unlikely(x) __builtin_expect(!!(x), 0)

struct inventory {
	pthread_mutex_t lock;
	long stock[8];
	unsigned long adds, takes, misses, notes;
};

static struct inventory inv = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int inv_add(struct inventory *in, int item, long n)
{
	int rc;

	if ((rc = pthread_mutex_lock(&in->lock)) != 0) {
		errno = rc;
		return -1;
	}
	in->stock[item & 7] += n;
	in->adds++;
	pthread_mutex_unlock(&in->lock);
	return 0;
}

static long inv_take(struct inventory *in, int item, long n)
{
	long got;

	if (pthread_mutex_lock(&in->lock))
		abort();
	got = in->stock[item & 7] < n ? in->stock[item & 7] : n;
	in->stock[item & 7] -= got;
	if (got < n)
		in->misses++;
	in->takes++;
	pthread_mutex_unlock(&in->lock);
	return got;
}

static int inv_total(struct inventory *in, long *out)
{
	int i;
	int err = pthread_mutex_lock(&in->lock);

	if (err != 0) {
		fprintf(stderr, "inventory: %s\n", strerror(err));
		return err;
	}
	*out = 0;
	for (i = 0; i < 8; i++)
		*out += in->stock[i];
	pthread_mutex_unlock(&in->lock);
	return err;
}

static int inv_forget_misses(struct inventory *in)
{
	if (unlikely(pthread_mutex_lock(&in->lock) != 0))
		return -1;
	in->misses = 0;
	pthread_mutex_unlock(&in->lock);
	return 0;
}

static unsigned long inv_misses(struct inventory *in)
{
	unsigned long m = 0;

	if (pthread_mutex_lock(&in->lock) == 0) {
		m = in->misses;
		pthread_mutex_unlock(&in->lock);
	} else {
		perror("pthread_mutex_lock");
	}
	return m;
}

static void inv_note(struct inventory *in)
{
	if (pthread_mutex_lock(&in->lock) == 0) {
		in->notes++;
		pthread_mutex_unlock(&in->lock);
	}
}

static void *clerk(void *arg)
{
	long me = (long)arg, taken = 0;
	int i;

	for (i = 0; i < IT; i++) {
		if (inv_add(&inv, (int)(me + i), 3) != 0)
			return (void *)-1L;
		taken += inv_take(&inv, (int)(me * 3 + i), 2 + (i & 3));
		inv_note(&inv);
	}
	return (void *)taken;
}

int main(void)
{
	pthread_t th[NT];
	long taken = 0, left;
	void *r;
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, clerk, (void *)(long)i);
	for (i = 0; i < NT; i++) {
		pthread_join(th[i], &r);
		taken += (long)r;
	}
	if (inv_total(&inv, &left) != 0)
		return 1;
	i = inv_misses(&inv) > 0;
	if (inv_forget_misses(&inv) != 0 || inv_misses(&inv) != 0)
		return 1;
	printf("adds %lu takes %lu notes %lu balanced %d misses>0 %d\n",
	       inv.adds, inv.takes, inv.notes, left + taken == 3L * NT * IT, i);
	return left + taken == 3L * NT * IT ? 0 : 1;
}
