/* SPDX-License-Identifier: MIT */
/* A mutex declared static inside the only function that uses it (a
 * "close later" queue guarded where it is filled), beside a global of
 * the same name in another function's scope: each is one object for
 * the whole run, like a global. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static int pending[NT * IT];
static int npending;
static long seen;

/* File scope: another lock of the same name, hidden inside defer(). */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static long flushed;

static void flush_one(void)
{
	pthread_mutex_lock(&q_lock);
	flushed++;
	pthread_mutex_unlock(&q_lock);
}

static void defer(int v)
{
	static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&q_lock);
	pending[npending++] = v;
	pthread_mutex_unlock(&q_lock);
}

static long tally(int v)
{
	static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
	static long sum;
	long now;

	pthread_mutex_lock(&t_lock);
	sum += v;
	seen++;
	now = sum;
	pthread_mutex_unlock(&t_lock);
	return now;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	long last = 0;

	for (int i = 0; i < IT; i++) {
		defer(id * IT + i);
		last = tally(i % 7);
		if (i % 5 == 0)
			flush_one();
	}
	return last >= 0 ? NULL : arg;
}

int main(void)
{
	pthread_t t[NT];
	long total = 0;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < npending; i++)
		total += pending[i];
	printf("pending=%d total=%ld seen=%ld sum=%ld flushed=%ld\n",
	       npending, total, seen, tally(0), flushed);
	return npending == NT * IT && seen == NT * IT + 1 &&
			       flushed == NT * (IT / 5)
		       ? 0
		       : 1;
}
