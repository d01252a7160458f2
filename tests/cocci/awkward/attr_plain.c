/* SPDX-License-Identifier: MIT */
/* A mutex initialised with attributes that ask for nothing an owner
   would notice: the type set to PTHREAD_MUTEX_NORMAL and the process
   sharing to PTHREAD_PROCESS_PRIVATE (code written for portability, or
   left from a debugging session).  It is a plain mutex: converted. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 500

static pthread_mutex_t queue_lock;
static long queued, served;

static int queue_init(void)
{
	pthread_mutexattr_t attr;
	int rc;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_PRIVATE);
	rc = pthread_mutex_init(&queue_lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return rc;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&queue_lock);
		queued += id;
		if (queued % 7 == 0)
			served++;
		pthread_mutex_unlock(&queue_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	long k;

	if (queue_init() != 0)
		return 2;
	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)(k + 1));
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	printf("queued %ld\n", queued);
	return queued == 6 * ROUNDS ? 0 : 1;
}
