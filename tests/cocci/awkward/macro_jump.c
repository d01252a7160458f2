/* SPDX-License-Identifier: MIT */
/* Jumps hidden in macro bodies that leave the section with the lock held:
   NEED() jumps to `fail:`, after the section, where the lock is released;
   GIVE_UP() returns from the function, and its caller releases the lock.
   Extracted, the jump would have no label to reach, and the `return 0`
   would just end the extracted function (0 is a valid void * too) and go
   on after the section: both sections run in place instead. */
/* expect: held goto fail */
/* expect: held returns with the lock held */
#include <pthread.h>
#include <stdio.h>

#define NEED(c)                                                                \
	do {                                                                   \
		if (!(c))                                                      \
			goto fail;                                             \
	} while (0)
#define GIVE_UP(c)                                                             \
	if (c)                                                                 \
		return 0

#define NT 4
#define IT 3000

static pthread_mutex_t stock_lock = PTHREAD_MUTEX_INITIALIZER;
static long stock = 100, sold, refused, capped;

static int sell(int n)
{
	pthread_mutex_lock(&stock_lock);
	NEED(stock >= n);
	stock -= n;
	sold += n;
	pthread_mutex_unlock(&stock_lock);
	return 1;
fail:
	refused++;
	pthread_mutex_unlock(&stock_lock);
	return 0;
}

static int restock_locked(int n)
{
	pthread_mutex_lock(&stock_lock);
	GIVE_UP(stock > 200);
	stock += n;
	pthread_mutex_unlock(&stock_lock);
	return 1;
}

static void restock(int n)
{
	if (!restock_locked(n)) {
		capped++;
		pthread_mutex_unlock(&stock_lock);
	}
}

static void *worker(void *arg)
{
	long id = (long)arg, got = 0;
	int i;

	for (i = 0; i < IT; i++) {
		got += sell(1 + i % 4);
		if (i % 2 == id % 2)
			restock(7);
	}
	return (void *)got;
}

int main(void)
{
	pthread_t t[NT];
	long i, tot = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		tot += (long)r;
	}
	/* What was sold, refused and capped depends on the interleaving;
	   what must hold is the accounting. */
	printf("calls %ld capped %d consistent %d\n", tot + refused, capped > 0,
	       stock == 100 + 7 * ((long)NT * IT / 2 - capped) - sold);
	return stock == 100 + 7 * ((long)NT * IT / 2 - capped) - sold ? 0 : 1;
}
