/* SPDX-License-Identifier: MIT */
/* In a worker loop, a value read under the lock decides the branch;
   one branch releases the lock and skips to the next item, the other
   releases it and goes on with the value after the if.  A third shape
   keeps its section in place: a branch whose code after the unlock
   breaks out of the loop from inside a nested if. */
/* expect: held break/continue after an early unlock */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 10000

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static long queue[128], served, skipped, stops;

static void *worker(void *arg)
{
	long id = (long)arg, i, mine = 0, seen = 0;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&q_lock);
		long v = queue[(i + id) % 128];
		if (v % 3 == 0) {
			queue[(i + id) % 128] = v + 1;
			skipped++;
			pthread_mutex_unlock(&q_lock);
			continue;
		} else {
			queue[(i + id) % 128] = v + 2;
			served++;
			pthread_mutex_unlock(&q_lock);
			mine += v % 7;
		}
		seen++;
	}
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&q_lock);
		if (i == IT / 2) {
			stops++;
			pthread_mutex_unlock(&q_lock);
			if (id >= 0)
				break;
		} else {
			pthread_mutex_unlock(&q_lock);
		}
	}
	return (void *)(mine >= 0 && seen <= IT ? 1L : 0L);
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0, sum = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	for (i = 0; i < 128; i++)
		sum += queue[i];
	printf("ok %ld, %ld items, stops %ld\n", ok, served + skipped, stops);
	printf("queue %s\n", sum == served * 2 + skipped ? "consistent" :
	       "INCONSISTENT");
	return 0;
}
