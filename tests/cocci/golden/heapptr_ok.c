/* SPDX-License-Identifier: MIT */
/* Locks that live on the heap behind pointers (c-blosc's
   global_comp_mutex): allocated with the mutex type's size, by the C
   library or by an allocator of the program, freed directly or through a
   free wrapper, tested and reset to NULL. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t *g_mutex;

struct pool {
	pthread_mutex_t *mu;
	int n;
};

static struct pool pool;
static int counter;

static unsigned char *my_malloc(size_t size)
{
	void *block = NULL;

	if (posix_memalign(&block, 32, size) != 0)
		return NULL;
	return block;
}

static void my_free(void *block)
{
	free(block);
}

void setup(void)
{
	g_mutex = (pthread_mutex_t *)my_malloc(sizeof(pthread_mutex_t));
	pthread_mutex_init(g_mutex, NULL);
	pool.mu = calloc(1, sizeof *pool.mu);
	if (!pool.mu)
		abort();
	pthread_mutex_init(pool.mu, NULL);
}

int bump(void)
{
	int v;

	pthread_mutex_lock(g_mutex);
	v = ++counter;
	pthread_mutex_unlock(g_mutex);
	pthread_mutex_lock(pool.mu);
	pool.n += v;
	pthread_mutex_unlock(pool.mu);
	return v;
}

void teardown(void)
{
	if (g_mutex == NULL)
		return;
	pthread_mutex_destroy(g_mutex);
	my_free(g_mutex);
	g_mutex = NULL;
	pthread_mutex_destroy(pool.mu);
	free(pool.mu);
	pool.mu = NULL;
}
