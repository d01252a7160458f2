/* SPDX-License-Identifier: MIT */
/* The benchmark, another program of the tree on the same loop: it never
   cancels a thread.  The loop's call through a pointer may run srv.c's
   handler only in the server, whose main() takes its address; so this
   section, which prints (a cancellation point only in a program that
   cancels threads), is delegated. */
#include <pthread.h>
#include <stdio.h>
#include "loop.h"

#define NT 3

static pthread_mutex_t bench_lock = PTHREAD_MUTEX_INITIALIZER;
static long done;

static void bench_tick(void *arg)
{
	long *n = arg;

	pthread_mutex_lock(&bench_lock);
	done += *n;
	if (done % 1000 == 0)
		printf("done %ld\n", done);
	pthread_mutex_unlock(&bench_lock);
}

static void *client(void *arg)
{
	long one = 1;
	struct ev e = {bench_tick, &one};

	(void)arg;
	loop_run(&e, 1, 2000);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, client, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", done);
	return 0;
}
