/* SPDX-License-Identifier: MIT */
/* expect: refused the program cancels threads */
/* thread pool whose workers wait for jobs on a condition variable and are
   shut down with pthread_cancel(), a cleanup handler releasing the queue lock
   (the pre-"stop flag" style of many older C thread pools) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	struct job *next;
	int arg;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t has_job;
	pthread_cond_t idle;
	struct job *head, *tail;
	int busy;
	long result;
};

static struct pool P;

static void pool_unlock(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&P.lock);
}

static void *worker(void *arg)
{
	struct job *j;
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&P.lock);
		pthread_cleanup_push(pool_unlock, NULL);
		while (P.head == NULL)
			pthread_cond_wait(&P.has_job, &P.lock);
		j = P.head;
		P.head = j->next;
		if (!P.head)
			P.tail = NULL;
		P.busy++;
		pthread_cleanup_pop(1);

		long r = (long)j->arg * 3;
		free(j);

		pthread_mutex_lock(&P.lock);
		P.result += r;
		if (--P.busy == 0 && P.head == NULL)
			pthread_cond_broadcast(&P.idle);
		pthread_mutex_unlock(&P.lock);
	}
	return NULL;
}

static void submit(int arg)
{
	struct job *j = malloc(sizeof(*j));
	j->arg = arg;
	j->next = NULL;
	pthread_mutex_lock(&P.lock);
	if (P.tail)
		P.tail->next = j;
	else
		P.head = j;
	P.tail = j;
	pthread_cond_signal(&P.has_job);
	pthread_mutex_unlock(&P.lock);
}

static void wait_idle(void)
{
	pthread_mutex_lock(&P.lock);
	while (P.head != NULL || P.busy > 0)
		pthread_cond_wait(&P.idle, &P.lock);
	pthread_mutex_unlock(&P.lock);
}

int main(void)
{
	pthread_t t[3];
	int i;
	pthread_mutex_init(&P.lock, NULL);
	pthread_cond_init(&P.has_job, NULL);
	pthread_cond_init(&P.idle, NULL);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 1; i <= 500; i++)
		submit(i);
	wait_idle();
	for (i = 0; i < 3; i++)
		pthread_cancel(t[i]);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_lock(&P.lock);
	printf("result=%ld\n", P.result);
	pthread_mutex_unlock(&P.lock);
	return P.result == 375750 ? 0 : 1;
}
