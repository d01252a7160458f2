/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A worker pool whose workers leave with pthread_exit() once the queue
   is drained: the exit comes after the early unlock, in the caller, so
   the section can still go to the server.  (A worker that would call
   pthread_exit() with the lock held is held in place:
   exit_thread_bailout.c.) */
#include <pthread.h>
#include <stdio.h>

#define NJOBS 3000
#define NWORKERS 3

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_job;
static long done_sum;
static int done_by[NWORKERS];

static int run_job(int j)
{
	return j % 17;
}

static void *worker(void *arg)
{
	long me = (long)arg;
	int j;

	for (;;) {
		pthread_mutex_lock(&q_lock);
		if (next_job == NJOBS) {
			pthread_mutex_unlock(&q_lock);
			pthread_exit((void *)me);
		}
		j = next_job++;
		done_by[me]++;
		pthread_mutex_unlock(&q_lock);
		pthread_mutex_lock(&q_lock);
		done_sum += run_job(j);
		pthread_mutex_unlock(&q_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	long i, total = 0;
	void *r;

	for (i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NWORKERS; i++) {
		pthread_join(t[i], &r);
		if ((long)r != i)
			return 1;
		total += done_by[i];
	}
	printf("jobs %ld sum %ld\n", total, done_sum);
	return 0;
}
