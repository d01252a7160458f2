/* SPDX-License-Identifier: MIT */
/* The second program of the tree, built from this file alone: it never
   cancels a thread nor sets a signal mask, though pack.c, another
   program, does both, and defines a report() of its own.  Its sections,
   a condition wait and a printf() through its report() included, are
   delegated. */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define ITEMS 3000

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cv = PTHREAD_COND_INITIALIZER;
static int queued, closed;
static long taken;

void report(const char *what, int n)
{
	printf("%s %d\n", what, n);
}

static void *worker(void *arg)
{
	long mine = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q_lock);
		while (queued == 0 && !closed)
			pthread_cond_wait(&q_cv, &q_lock);
		if (queued == 0) {
			pthread_mutex_unlock(&q_lock);
			break;
		}
		queued--;
		taken++;
		mine++;
		pthread_mutex_unlock(&q_lock);
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[NT];
	long sum = 0;

	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&q_lock);
		queued++;
		pthread_cond_signal(&q_cv);
		pthread_mutex_unlock(&q_lock);
	}
	pthread_mutex_lock(&q_lock);
	closed = 1;
	pthread_cond_broadcast(&q_cv);
	pthread_mutex_unlock(&q_lock);
	for (int i = 0; i < NT; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	pthread_mutex_lock(&q_lock);
	report("taken", (int)taken);
	pthread_mutex_unlock(&q_lock);
	report("sum", (int)sum);
	return 0;
}
