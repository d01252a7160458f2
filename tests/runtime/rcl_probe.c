/* SPDX-License-Identifier: MIT */
/*
 * Helper of t_rcl_env.sh: initialise a lock with default attributes (so
 * LIBLOCK_LOCK, RCL_SERVERS, RCL_DEGRADED apply), run N sections from two
 * threads, print "algorithm=NAME server=CPU degraded=0|1 count=N".
 * Exit 0, or 2 if the lock cannot be initialised.
 *
 * With RCL_PROBE_ZEROED=1 the lock is never initialised: its memory is
 * all zero, as a static structure's a program locks without an init
 * call, and "cpu0=1" is added when a server runs on CPU 0, which is
 * not the default server.
 *
 * With RCL_PROBE_END=pthread_exit, main() ends in pthread_exit() while
 * the worker has yet to run its sections; the worker prints
 * "count=N" (buffered) and returns.  The process must then end with
 * status 0, its atexit handler printing "atexit", as without RCL.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "liblock.h"
#include "rcl.h"

#define N 100

static liblock_lock_t lock;
static long count;

static void *cs(void *arg)
{
	count++;
	return arg;
}

static void *worker(void *arg)
{
	for (int i = 0; i < N / 2; i++)
		liblock_exec(&lock, cs, arg);
	return NULL;
}

static void say_atexit(void)
{
	printf("atexit\n");
}

static void *last_worker(void *arg)
{
	usleep(50000); /* main() has ended by now */
	for (int i = 0; i < N; i++)
		liblock_exec(&lock, cs, arg);
	printf("count=%ld\n", count); /* flushed by exit() */
	return NULL;
}

int main(void)
{
	pthread_t t;
	bool zeroed = getenv("RCL_PROBE_ZEROED") != NULL;
	int rc = zeroed ? 0 : liblock_init(&lock, NULL);
	rcl_stats_t st;
	bool cpu0;

	if (rc != 0) {
		fprintf(stderr, "rcl_probe: liblock_init: %s\n", strerror(rc));
		return 2;
	}
	if (getenv("RCL_PROBE_END") &&
	    strcmp(getenv("RCL_PROBE_END"), "pthread_exit") == 0) {
		/* ThreadSanitizer's runtime keeps a thread of its own, which
		 * the RCL runtime cannot tell from the program's: the process
		 * would not end */
		if (strcmp(LL_SANITIZER, "tsan") == 0) {
			printf("tsan\n");
			return 0;
		}
		atexit(say_atexit);
		if (pthread_create(&t, NULL, last_worker, NULL) != 0)
			return 1;
		pthread_exit(NULL);
	}
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	worker(NULL);
	pthread_join(t, NULL);
	/* the runtime's state once the sections ran: a zeroed lock's server */
	cpu0 = zeroed && rcl_default_server() != 0 && rcl_stats(0, &st) == 0 &&
	       st.running;
	printf("algorithm=%s server=%d degraded=%d count=%ld%s\n",
	       liblock_lock_algorithm(&lock), rcl_default_server(),
	       rcl_degraded(), count, cpu0 ? " cpu0=1" : "");
	return liblock_destroy(&lock) == 0 && count == N ? 0 : 1;
}
