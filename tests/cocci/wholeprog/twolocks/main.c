/* SPDX-License-Identifier: MIT */
/* The section in worker() calls counted.h's lock(), which counts the
 * waiter that main() looks for; plugin.c's lock() is another function. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "counted.h"
#include "plugin.h"

static struct counted table = { PTHREAD_MUTEX_INITIALIZER, 0 };
static long rows;
static int started;

static void *worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
		;
	lock(&table);
	rows++;
	unlock(&table);
	return NULL;
}

int main(void)
{
	pthread_t t;
	int seen = 0;

	lock(&table);
	__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	for (int i = 0; i < 5000 && !seen; i++) {
		struct timespec ts = { 0, 1000000 };

		seen = waiting(&table) > 0;
		nanosleep(&ts, NULL);
	}
	unlock(&table);
	pthread_join(t, NULL);
	printf("waiter seen %d rows %ld plugin %d\n", seen, rows,
	       plugin_run());
	return !(seen && rows == 1);
}
