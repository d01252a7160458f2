/* SPDX-License-Identifier: MIT */
/* __func__ inside the section names the function it was written in. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const char *last_fn;
static long calls;

static void trace_update(void)
{
	pthread_mutex_lock(&m);
	calls++;
	last_fn = __func__;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		trace_update();
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
	printf("calls %ld last %s\n", calls, last_fn);
	return calls == NT * IT && strcmp(last_fn, "trace_update") == 0 ? 0 : 1;
}
