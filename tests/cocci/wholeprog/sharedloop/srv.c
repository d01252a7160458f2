/* SPDX-License-Identifier: MIT */
/* The server: a handler that the shared loop runs through a pointer
   cancels the worker thread, kept in a copy of pthread_create()'s slot (as
   redis' bio.c keeps its threads), so any thread of this program may be
   the one cancelled.  The worker's section may print (a cancellation
   point): it is held; the handler's own section is delegated. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "loop.h"

static pthread_mutex_t srv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t worker_t;
static long ticks, spins;

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&srv_lock);
		if (spins++ < 0)
			printf("spin %ld\n", spins);
		pthread_mutex_unlock(&srv_lock);
		usleep(1000);
	}
	return NULL;
}

static void srv_tick(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&srv_lock);
	ticks++;
	pthread_mutex_unlock(&srv_lock);
	if (ticks == 3) {
		pthread_cancel(worker_t);
		pthread_join(worker_t, NULL);
	}
}

int main(void)
{
	struct ev e = {srv_tick, NULL};

	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	worker_t = t;
	loop_run(&e, 1, 3);
	printf("ticks %ld\n", ticks);
	return 0;
}
