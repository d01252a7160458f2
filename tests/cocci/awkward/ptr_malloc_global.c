/* SPDX-License-Identifier: MIT */
/* A library's global lock that lives on the heap, as c-blosc's
   global_comp_mutex does: a static pthread_mutex_t * is allocated with
   the mutex type's size by an aligned allocator of the program, set up
   by an init function, torn down and freed (through the program's own
   free wrapper) by a destroy function, and re-created for a second
   round.  Every section locks through the pointer.  A structure's field
   does the same with malloc(sizeof *field) and free(). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 2000

static pthread_mutex_t *api_mutex;
static long total, calls;
static int ready;

static struct counters {
	pthread_mutex_t *mu;
	long hits;
} cnt;

static void *aligned_alloc64(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, size) != 0)
		return NULL;
	memset(p, 0xa5, size); /* no help from zeroed memory */
	return p;
}

static void release(void *block)
{
	free(block);
}

static void lib_init(void)
{
	if (ready)
		return;
	api_mutex = (pthread_mutex_t *)aligned_alloc64(sizeof(pthread_mutex_t));
	pthread_mutex_init(api_mutex, NULL);
	cnt.mu = malloc(sizeof *cnt.mu);
	if (cnt.mu == NULL)
		abort();
	pthread_mutex_init(cnt.mu, NULL);
	ready = 1;
}

static void lib_destroy(void)
{
	if (!ready)
		return;
	ready = 0;
	pthread_mutex_destroy(api_mutex);
	release(api_mutex);
	api_mutex = NULL;
	pthread_mutex_destroy(cnt.mu);
	free(cnt.mu);
	cnt.mu = NULL;
}

static long lib_call(long v)
{
	long r;

	pthread_mutex_lock(api_mutex);
	total += v;
	calls++;
	r = total;
	pthread_mutex_unlock(api_mutex);
	pthread_mutex_lock(cnt.mu);
	cnt.hits++;
	pthread_mutex_unlock(cnt.mu);
	return r;
}

static void *worker(void *arg)
{
	long id = (long)arg, last = 0;
	int i;

	for (i = 0; i < IT; i++)
		last = lib_call(id + 1);
	return (void *)(last > 0 ? 1L : 0L);
}

int main(void)
{
	pthread_t t[NT];
	long i, round, bad = 0;

	for (round = 0; round < 2; round++) {
		void *ok;

		lib_init();
		for (i = 0; i < NT; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		for (i = 0; i < NT; i++) {
			pthread_join(t[i], &ok);
			bad += ok == NULL;
		}
		lib_destroy();
	}
	printf("total %ld calls %ld hits %ld bad %ld\n", total, calls, cnt.hits,
	       bad);
	return total == 2L * IT * (1 + 2 + 3 + 4) && calls == 2L * NT * IT &&
	    cnt.hits == calls && bad == 0 ? 0 : 1;
}
