/* SPDX-License-Identifier: MIT */
/* Lock wrappers on their parameter, defined on the line right after the
   file's #include lines.  Once their calls are liblock's, they are kept
   with __attribute__((unused)), which was written before the #include
   lines the tool adds there (`__attribute__((unused)) #include
   <stdint.h>`): the compile check failed and nothing was written. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
static void grab(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void drop(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
}

static pthread_mutex_t hits_mu = PTHREAD_MUTEX_INITIALIZER;
static long hits;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50000; i++) {
		grab(&hits_mu);
		hits++;
		drop(&hits_mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld\n", hits);
	return hits == 150000 ? 0 : 1;
}
