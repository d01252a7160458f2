/* Golden: a thread pool shaped like zstd's lib/common/pool.c.  Locks,
 * conditions and their types come through macros (zpool.h); the worker's
 * section ends inside the block that follows its wait loop, declares the
 * job it pops there and may leave early; Z_LOG statements have no ';'. */
#include <stddef.h>
#include "zpool.h"

typedef struct {
	void (*fn)(void *);
	void *arg;
} job_t;

typedef struct {
	Z_mutex_t mutex;
	Z_cond_t pop_cond;
	Z_cond_t push_cond;
	job_t queue[8];
	unsigned head, tail, busy;
	int shutdown;
} pool_t;

static void *worker(void *opaque)
{
	pool_t *const pool = opaque;
	unsigned done = 0;

	for (;;) {
		Z_mutex_lock(&pool->mutex);
		while (pool->head == pool->tail) {
			if (pool->shutdown) {
				Z_mutex_unlock(&pool->mutex);
				return (void *)(size_t)done;
			}
			Z_cond_wait(&pool->pop_cond, &pool->mutex);
		}
		{	job_t const job = pool->queue[pool->head % 8];
			pool->head++;
			pool->busy++;
			Z_LOG("popped %u", pool->head)
			Z_cond_signal(&pool->push_cond);
			Z_mutex_unlock(&pool->mutex);

			job.fn(job.arg);
			done++;

			Z_mutex_lock(&pool->mutex);
			pool->busy--;
			Z_mutex_unlock(&pool->mutex);
		}
	}
}

int pool_init(pool_t *pool)
{
	pool->head = pool->tail = pool->busy = 0;
	pool->shutdown = 0;
	if (Z_mutex_init(&pool->mutex, NULL))
		return -1;
	Z_cond_init(&pool->pop_cond, NULL);
	Z_cond_init(&pool->push_cond, NULL);
	return 0;
}

void pool_push(pool_t *pool, job_t job)
{
	Z_mutex_lock(&pool->mutex);
	while (pool->tail - pool->head == 8)
		Z_cond_wait(&pool->push_cond, &pool->mutex);
	pool->queue[pool->tail++ % 8] = job;
	Z_cond_signal(&pool->pop_cond);
	Z_mutex_unlock(&pool->mutex);
}

void pool_destroy(pool_t *pool)
{
	Z_cond_destroy(&pool->pop_cond);
	Z_cond_destroy(&pool->push_cond);
	Z_mutex_destroy(&pool->mutex);
}

void *pool_worker(void *opaque)
{
	return worker(opaque);
}
