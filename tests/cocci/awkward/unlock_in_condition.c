/* SPDX-License-Identifier: MIT */
/* A thread pool's shutdown (mbrossard's threadpool_destroy()): the unlock
   is an operand of `||` in an if condition, after the broadcast.  The
   section cannot end there and is held; its reason named an "unlock in
   another function", though the unlock is in this one. */
/* expect: held its unlock at line 36 is inside an expression */
#include <pthread.h>
#include <stdio.h>

#define NT 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notify = PTHREAD_COND_INITIALIZER;
static int stopping, waiting;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	waiting++;
	while (!stopping)
		pthread_cond_wait(&notify, &lock);
	waiting--;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int pool_stop(void)
{
	int err = 0;

	pthread_mutex_lock(&lock);
	do {
		stopping = 1;
		if (pthread_cond_broadcast(&notify) != 0 ||
		    pthread_mutex_unlock(&lock) != 0) {
			err = -1;
			break;
		}
	} while (0);
	return err;
}

int main(void)
{
	pthread_t t[NT];
	int err;

	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	err = pool_stop();
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("stop %d, waiting %d\n", err, waiting);
	return 0;
}
