/* SPDX-License-Identifier: MIT */
/* expect: held pthread_create() */
/* thread pool that spawns workers lazily, under the pool lock, when a job is
   queued and no worker is idle (APR / GLib thread-pool style); at the end it
   reports whether any worker ran in a realtime class, as each worker notes
   when it starts (asked from main at the end, an exited worker has no policy
   any more: pthread_getschedparam fails with ESRCH) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXW 3

struct job { struct job *next; int n; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static struct job *head;
static pthread_t workers[MAXW];
static int nworkers, idle, stop, pending;
static long total;
static _Atomic int realtime;

static void *worker(void *arg)
{
	struct job *j;
	(void)arg;
	if (sched_getscheduler(0) != SCHED_OTHER)
		realtime++;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!stop && head == NULL) {
			idle++;
			pthread_cond_wait(&work, &lock);
			idle--;
		}
		if (head == NULL)
			break;
		j = head;
		head = j->next;
		pthread_mutex_unlock(&lock);
		long r = 0;
		for (int i = 0; i < j->n; i++)
			r += i % 7;
		free(j);
		pthread_mutex_lock(&lock);
		total += r;
		if (--pending == 0)
			pthread_cond_signal(&done);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void submit(int n)
{
	struct job *j = malloc(sizeof(*j));
	j->n = n;
	pthread_mutex_lock(&lock);
	j->next = head;
	head = j;
	pending++;
	if (idle > 0)
		pthread_cond_signal(&work);
	else if (nworkers < MAXW && pthread_create(&workers[nworkers], NULL, worker, NULL) == 0)
		nworkers++;
	pthread_mutex_unlock(&lock);
}

int main(void)
{
	int i;
	for (i = 0; i < 300; i++)
		submit(1000 + i);
	pthread_mutex_lock(&lock);
	while (pending > 0)
		pthread_cond_wait(&done, &lock);
	stop = 1;
	pthread_cond_broadcast(&work);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	printf("total=%ld realtime workers=%s\n", total, realtime ? "yes" : "no");
	return realtime == 0 ? 0 : 1;
}
