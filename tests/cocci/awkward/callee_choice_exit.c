/* SPDX-License-Identifier: MIT */
/* The section picks its handler with a conditional in the callee
   position, `(stopping ? stop_worker : add_job)(&v)`, and one of the two
   ends its thread.  Neither is called by name, and neither address is
   stored anywhere: the call through the expression reaches both, and the
   section is held (on a server thread the exit would end the server,
   holding the lock). */
/* expect: held pthread_exit() in stop_worker() */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int stopping;

static void add_job(long *arg)
{
	total += *arg;
}

static void stop_worker(long *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static void *worker(void *arg)
{
	long v = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		v = (v * 7 + i) % 101;
		pthread_mutex_lock(&queue_lock);
		(stopping ? stop_worker : add_job)(&v);
		pthread_mutex_unlock(&queue_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return 0;
}
