/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>

#include "srutil.h"

/* The program's handler for every lock it may be cancelled with. */
void mutex_cleanup(void *mutex)
{
	pthread_mutex_unlock(mutex);
}

struct pool_info {
	pthread_mutex_t pending_lock; /* first: the structure's address */
	int pending;
	int done;
};

static void *worker_fn(void *arg)
{
	struct pool_info *info = arg;

	for (int i = 0; i < 50000; i++) {
		pthread_mutex_lock(&info->pending_lock);
		pthread_cleanup_push(mutex_cleanup, &info->pending_lock);
		info->pending++;
		pthread_cleanup_pop(1);

		pthread_mutex_lock(&info->pending_lock);
		info->done++;
		pthread_mutex_unlock(&info->pending_lock);
	}
	return NULL;
}

int main(void)
{
	struct pool_info info = {.pending = 0};
	pthread_t t[4];

	pthread_mutex_init(&info.pending_lock, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker_fn, &info);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("pending %d done %d\n", info.pending, info.done);
	pthread_mutex_destroy(&info.pending_lock);
	return 0;
}
