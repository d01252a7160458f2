/* SPDX-License-Identifier: MIT */
/* A buffer pool written the way zstd's lib/compress/zstdmt_compress.c is,
 * and built the way zstd builds it: -Wc++-compat (no implicit conversion
 * from void *) and -Wdeclaration-after-statement (C90 blocks).  Each
 * section's extracted code must compile without a new warning there:
 *  - pool_count(): one pointer travels as the context itself;
 *  - pool_free(): one local comes back through a pointer to it;
 *  - pool_grab(), pool_put(): several locals travel in a context union;
 *  - pool_size(): the lock is taken before a block whose declarations
 *    are used after the unlock, and another declaration of that block
 *    (`unsigned u;`) follows them: the extracted function declares it
 *    at its top, not after the hoisted declarations' assignments. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NBUF 8
#define NTHREADS 4
#define ROUNDS 20000

typedef struct {
	pthread_mutex_t mu;
	size_t sizes[NBUF];
	unsigned nfree;
	unsigned long grabs, puts;
} pool_t;

static pool_t *the_pool;

static size_t pool_grab(pool_t *p)
{
	size_t got = 0;
	pthread_mutex_lock(&p->mu);
	if (p->nfree > 0) {
		p->nfree--;
		got = p->sizes[p->nfree];
		p->grabs++;
	}
	pthread_mutex_unlock(&p->mu);
	return got;
}

static void pool_put(pool_t *p, size_t size, unsigned tag)
{
	pthread_mutex_lock(&p->mu);
	if (p->nfree < NBUF)
		p->sizes[p->nfree++] = size + (tag & 0);
	p->puts++;
	pthread_mutex_unlock(&p->mu);
}

static void pool_count(pool_t *p)
{
	pthread_mutex_lock(&p->mu);
	p->puts++;
	p->grabs++;
	pthread_mutex_unlock(&p->mu);
}

static unsigned pool_free(void)
{
	unsigned n;
	pthread_mutex_lock(&the_pool->mu);
	n = the_pool->nfree;
	pthread_mutex_unlock(&the_pool->mu);
	return n;
}

static size_t pool_size(pool_t *p)
{
	pthread_mutex_lock(&p->mu);
	{   unsigned const n = p->nfree;
	    size_t const base = sizeof(*p) + n;
	    unsigned u;
	    size_t total = 0;
	    for (u = 0; u < n; u++)
		    total += p->sizes[u];
	    pthread_mutex_unlock(&p->mu);
	    return base + total;
	}
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(size_t)arg;
	int i;
	for (i = 0; i < ROUNDS; i++) {
		size_t s = pool_grab(the_pool);
		if (s != 0)
			pool_put(the_pool, s, id);
		if ((i & 7) == 0)
			pool_count(the_pool);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	size_t i;
	the_pool = (pool_t *)calloc(1, sizeof(*the_pool));
	if (!the_pool)
		return 1;
	pthread_mutex_init(&the_pool->mu, NULL);
	for (i = 0; i < NBUF; i++)
		the_pool->sizes[i] = 100 + i;
	the_pool->nfree = NBUF;
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("size=%zu free=%u grabs=puts:%d\n",
	       pool_size(the_pool) - sizeof(*the_pool), pool_free(),
	       the_pool->grabs == the_pool->puts);
	pthread_mutex_destroy(&the_pool->mu);
	free(the_pool);
	return 0;
}
