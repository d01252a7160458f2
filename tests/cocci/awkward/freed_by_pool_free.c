/* SPDX-License-Identifier: MIT */
/* expect: refused never destroyed */
/* Sessions come from a small allocator and go back through
   pool_free(pool, obj), which frees the object (xfsprogs gives inodes
   back with kmem_cache_free(cache, obj)).  Each session's mutex is
   initialised and never destroyed: as a pthread mutex that costs
   nothing, as a liblock lock each session freed would leak its lock's
   memory.  The object given back is the call's last argument, not its
   first: the lock stays POSIX. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define SESSIONS 200

struct pool {
	size_t size;
	long handed_out;
};

struct session {
	pthread_mutex_t mu;
	long bytes;
};

static void *pool_get(struct pool *p)
{
	p->handed_out++;
	return calloc(1, p->size);
}

static void pool_free(struct pool *p, void *obj)
{
	p->handed_out--;
	free(obj);
}

static void *sender(void *arg)
{
	struct session *s = arg;

	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&s->mu);
		s->bytes += i % 3;
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

int main(void)
{
	struct pool pool = { sizeof(struct session), 0 };
	long total = 0;

	for (int n = 0; n < SESSIONS; n++) {
		struct session *s = pool_get(&pool);
		pthread_t tid[NTHREADS];

		if (s == NULL)
			return 1;
		pthread_mutex_init(&s->mu, NULL);
		for (int i = 0; i < NTHREADS; i++)
			pthread_create(&tid[i], NULL, sender, s);
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(tid[i], NULL);
		total += s->bytes;
		pool_free(&pool, s);
	}
	printf("total %ld, handed out %ld\n", total, pool.handed_out);
	return 0;
}
