/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A pool owns its mutex (`struct pool { pthread_mutex_t lock; }`), and
   each task of a local array points at it (`struct task {
   pthread_mutex_t *lock; }`, the same field name).  Only the tasks lock
   it, through the pointer.  The compiler said the task's field was no
   mutex, so `tasks[i].lock = &pool->lock` was no use of a lock: the
   pointer was converted without the pool's mutex, and the compile check
   wrote nothing for the whole file. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTASKS 3
#define ITEMS 4000

struct pool {
	pthread_mutex_t lock;
	long done;
	long weight;
};

struct task {
	pthread_mutex_t *lock;
	struct pool *owner;
	int cost;
};

static void *task_run(void *arg)
{
	struct task *t = arg;

	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(t->lock);
		t->owner->done++;
		t->owner->weight += t->cost;
		pthread_mutex_unlock(t->lock);
	}
	return NULL;
}

int main(void)
{
	struct pool *pool = calloc(1, sizeof(*pool));
	struct task tasks[NTASKS];
	pthread_t tid[NTASKS];

	if (pool == NULL)
		return 1;
	pthread_mutex_init(&pool->lock, NULL);
	for (int i = 0; i < NTASKS; i++) {
		tasks[i].lock = &pool->lock;
		tasks[i].owner = pool;
		tasks[i].cost = i + 2;
		pthread_create(&tid[i], NULL, task_run, &tasks[i]);
	}
	for (int i = 0; i < NTASKS; i++)
		pthread_join(tid[i], NULL);
	printf("done %ld weight %ld\n", pool->done, pool->weight);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
	return 0;
}
