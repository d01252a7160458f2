/* SPDX-License-Identifier: MIT */
/*
 * Helper of t_rcl_env.sh: initialise a lock with default attributes (so
 * LIBLOCK_LOCK, RCL_SERVERS, RCL_DEGRADED apply), run N sections from two
 * threads, print "algorithm=NAME server=CPU degraded=0|1 count=N".
 * Exit 0, or 2 if the lock cannot be initialised.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	pthread_t t;
	int rc = liblock_init(&lock, NULL);

	if (rc != 0) {
		fprintf(stderr, "rcl_probe: liblock_init: %s\n", strerror(rc));
		return 2;
	}
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	worker(NULL);
	pthread_join(t, NULL);
	printf("algorithm=%s server=%d degraded=%d count=%ld\n",
	       liblock_lock_algorithm(&lock), rcl_default_server(),
	       rcl_degraded(), count);
	return liblock_destroy(&lock) == 0 && count == N ? 0 : 1;
}
