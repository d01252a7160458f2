/* SPDX-License-Identifier: MIT */
/* A request counter under one lock, and inside its section the
   bytes-served total under a second lock: the section of stats_mutex is
   extracted on its own and called from the extracted section of
   req_mutex.  Eight workers; the totals are checked at exit. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 8
#define REQUESTS 5000

static pthread_mutex_t req_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nr_requests;
static unsigned long bytes_served;

static void account(unsigned long len)
{
	pthread_mutex_lock(&req_mutex);
	nr_requests++;
	pthread_mutex_lock(&stats_mutex);
	bytes_served += len;
	pthread_mutex_unlock(&stats_mutex);
	pthread_mutex_unlock(&req_mutex);
}

static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg;
	int i;

	for (i = 0; i < REQUESTS; i++)
		account(id + (unsigned long)i % 7);
	return NULL;
}

int main(void)
{
	pthread_t tid[WORKERS];
	unsigned long want = 0;
	int i, j;

	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)(unsigned long)i))
			return 2;
	for (i = 0; i < WORKERS; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < WORKERS; i++)
		for (j = 0; j < REQUESTS; j++)
			want += (unsigned long)i + (unsigned long)j % 7;
	printf("requests %lu bytes %lu\n", nr_requests, bytes_served);
	if (nr_requests != WORKERS * REQUESTS || bytes_served != want) {
		fprintf(stderr, "lost updates: want %d/%lu\n",
			WORKERS * REQUESTS, want);
		return EXIT_FAILURE;
	}
	return 0;
}
