/* SPDX-License-Identifier: MIT */
/* memcached's logger: each thread keeps its own log in thread-specific
   data, reached through a macro (GET_LOG() inside LOG_EVENT()) that a
   section uses while it holds the stats lock.  Run on a server thread,
   pthread_getspecific() would return the server's value (NULL here):
   the section must stay in its thread (held), and every thread must find
   its own events in its own log. */
/* expect: held thread-specific data */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 6
#define ROUNDS 2000

struct log {
	long events;
	long last;
};

static pthread_key_t log_key;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long evictions;

#define GET_LOG() ((struct log *)pthread_getspecific(log_key))
#define LOG_EVENT(v)                                                           \
	do {                                                                   \
		struct log *l_ = GET_LOG();                                    \
		if (l_ != NULL) {                                              \
			l_->events++;                                          \
			l_->last = (v);                                        \
		}                                                              \
	} while (0)

static void evict(void)
{
	pthread_mutex_lock(&stats_lock);
	evictions++;
	LOG_EVENT(evictions);
	pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg)
{
	struct log *mine = arg;

	if (pthread_setspecific(log_key, mine) != 0)
		abort();
	for (int i = 0; i < ROUNDS; i++)
		evict();
	return NULL;
}

int main(void)
{
	static struct log logs[NTHREADS];
	pthread_t t[NTHREADS];
	long sum = 0;
	int bad = 0;

	if (pthread_key_create(&log_key, NULL) != 0)
		return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, &logs[i]);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++) {
		sum += logs[i].events;
		bad += logs[i].events != ROUNDS;
	}
	printf("evictions %ld, logged %ld, threads with a wrong log %d\n",
	       evictions, sum, bad);
	return sum == evictions && bad == 0 ? 0 : 1;
}
