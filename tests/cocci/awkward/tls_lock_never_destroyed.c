/* SPDX-License-Identifier: MIT */
/* Per-thread statistics in thread-local storage, each with its own mutex
   (a reporter may read them), for a thread per connection: many short
   threads.  Nothing destroys the mutexes; a liblock lock would keep
   memory for each thread that ends, so the lock stays POSIX. */
/* expect: refused in thread-local storage and never destroyed */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 50
#define NT 4

struct tstats {
	pthread_mutex_t mu;
	long served;
};

static __thread struct tstats me = { .mu = PTHREAD_MUTEX_INITIALIZER };
static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *conn(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&me.mu);
		me.served++;
		pthread_mutex_unlock(&me.mu);
	}
	pthread_mutex_lock(&total_mu);
	total += me.served;
	pthread_mutex_unlock(&total_mu);
	return NULL;
}

int main(void)
{
	for (int r = 0; r < ROUNDS; r++) {
		pthread_t t[NT];

		for (long i = 0; i < NT; i++)
			pthread_create(&t[i], NULL, conn, (void *)(i + 10));
		for (int i = 0; i < NT; i++)
			pthread_join(t[i], NULL);
	}
	printf("served %ld\n", total);
	return 0;
}
