/* SPDX-License-Identifier: MIT */
/* The lock is a struct field declared by a fields macro, as libuv's
   struct uv_loop_s ends with UV_LOOP_PRIVATE_FIELDS (include/uv/unix.h),
   which declares the loop's wq_mutex among other private fields; the
   thread pool's workers and the loop thread take it around the queue
   of completed work. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

#define LOOP_PRIVATE_FIELDS \
	unsigned long flags; \
	pthread_mutex_t wq_mutex; \
	long wq_done;

struct loop {
	void *data;
	unsigned int active_handles;
	LOOP_PRIVATE_FIELDS
};

static struct loop default_loop;

static void *worker(void *arg)
{
	struct loop *loop = arg;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&loop->wq_mutex);
		loop->wq_done++;
		pthread_mutex_unlock(&loop->wq_mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	if (pthread_mutex_init(&default_loop.wq_mutex, NULL) != 0)
		return 2;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &default_loop);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("done %ld\n", default_loop.wq_done);
	return default_loop.wq_done == NT * IT ? 0 : 1;
}
