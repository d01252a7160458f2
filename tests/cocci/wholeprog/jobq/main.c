#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "queue.h"
#include "stats.h"

static void *producer(void *arg)
{
	long base = (long)arg * 100000;

	for (long i = 0; i < JOBS_PER_WORKER; i++)
		while (q_push(base + i) != 0)
			sched_yield();
	return NULL;
}

static void *consumer(void *arg)
{
	long v, got = 0;

	(void)arg;
	while (got < JOBS_PER_WORKER) {
		if (q_pop(&v)) {
			stats_add(v);
			got++;
		} else {
			sched_yield();
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t p[NWORKERS], c[NWORKERS];
	long done, sum;

	for (long i = 0; i < NWORKERS; i++) {
		if (pthread_create(&p[i], NULL, producer, (void *)i) ||
		    pthread_create(&c[i], NULL, consumer, NULL)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < NWORKERS; i++) {
		pthread_join(p[i], NULL);
		pthread_join(c[i], NULL);
	}
	pthread_mutex_lock(&stats_lock);
	done = stats_done;
	sum = stats_sum;
	pthread_mutex_unlock(&stats_lock);
	printf("done %ld sum %ld digest %lx\n", done, sum, q_digest());
	return done == (long)NWORKERS * JOBS_PER_WORKER ? 0 : 1;
}
