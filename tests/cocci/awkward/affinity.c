/* SPDX-License-Identifier: MIT */
/* A one-time setup sizes a pool from the CPUs the thread may run on,
   sched_getaffinity(0, ...), under the setup lock.  On Linux pid 0 is
   the calling thread: on the server thread the mask would be the
   server's.  Each thread checks that the mask read in the section is the
   one it reads after.  Held. */
/* expect: held the thread's CPU affinity */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define NT 2

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int ncpu;

static void *worker(void *arg)
{
	cpu_set_t in, after;
	int same;

	(void)arg;
	pthread_mutex_lock(&init_lock);
	sched_getaffinity(0, sizeof in, &in);
	ncpu = CPU_COUNT(&in);
	pthread_mutex_unlock(&init_lock);
	sched_getaffinity(0, sizeof after, &after);
	same = CPU_EQUAL(&after, &in);
	return (void *)(long)same;
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("ok %ld %d\n", ok, ncpu > 0);
	return ok == NT ? 0 : 1;
}
