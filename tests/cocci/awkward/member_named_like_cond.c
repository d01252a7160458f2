/* SPDX-License-Identifier: MIT */
/* Two structures have a pthread_cond_t named `cond`; a third, the thread
   mutex object, has a member `cond` too, a pointer to the runtime's own
   condition object, created only for timed mutexes.  That member is no
   lock: the mutex and both conditions are converted. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rt_cond {
	pthread_cond_t cond;
} rt_cond_t;

typedef struct rt_mutex {
	pthread_mutex_t mutex;
	rt_cond_t *cond;
	int locked;
} rt_mutex_t;

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int items;
};

static int rt_cond_create(rt_cond_t **c)
{
	*c = calloc(1, sizeof(**c));
	return *c ? pthread_cond_init(&(*c)->cond, NULL) : -1;
}

static int rt_mutex_create(rt_mutex_t **out, int timed)
{
	rt_mutex_t *new_mutex = calloc(1, sizeof(*new_mutex));

	if (!new_mutex)
		return -1;
	pthread_mutex_init(&new_mutex->mutex, NULL);
	if (timed && rt_cond_create(&new_mutex->cond) != 0)
		return -1;
	*out = new_mutex;
	return 0;
}

static rt_mutex_t *gate;
static rt_cond_t *ready_cv;
static struct queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			 0};
static int ready;

static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate->mutex);
	while (!ready)
		pthread_cond_wait(&ready_cv->cond, &gate->mutex);
	pthread_mutex_unlock(&gate->mutex);
	pthread_mutex_lock(&q.lock);
	while (q.items < 100)
		pthread_cond_wait(&q.cond, &q.lock);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (rt_mutex_create(&gate, 0) || rt_cond_create(&ready_cv))
		return 1;
	pthread_create(&t, NULL, consumer, NULL);
	pthread_mutex_lock(&gate->mutex);
	ready = 1;
	pthread_cond_signal(&ready_cv->cond);
	pthread_mutex_unlock(&gate->mutex);
	for (int i = 0; i < 100; i++) {
		pthread_mutex_lock(&q.lock);
		q.items++;
		pthread_cond_signal(&q.cond);
		pthread_mutex_unlock(&q.lock);
	}
	pthread_join(t, NULL);
	printf("items %d\n", q.items);
	return 0;
}
