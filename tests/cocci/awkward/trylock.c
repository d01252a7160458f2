/* SPDX-License-Identifier: MIT */
/* A trylock section with a fallback to the blocking lock: the trylock
   section runs through rcl_tryexec(), its return only when it ran. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void add(void)
{
	if (pthread_mutex_trylock(&m) == 0) {
		n++;
		pthread_mutex_unlock(&m);
		return;
	}
	pthread_mutex_lock(&m);
	n++;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		add();
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
	printf("n %ld\n", n);
	return n == NT * IT ? 0 : 1;
}
