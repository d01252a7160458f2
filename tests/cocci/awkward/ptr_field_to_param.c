/* SPDX-License-Identifier: MIT */
/* Jobs carry a pointer to their pool's lock (`jobs[i].lock =
   &pool->lock`), lock it directly, and also hand it to a helper that
   takes a `pthread_mutex_t *` parameter.  The parameter carries the
   pointer's lock: the helper's section is held, the jobs' own section
   delegated, and the pointer, the pool's lock and the parameter change
   type together.  (Once both stayed POSIX, "not followed"; converted
   without the parameter, the compile check wrote nothing.) */
/* expect: held locked through parameter 'm' of locked_add() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define NJ 2000

struct pool {
	pthread_mutex_t lock;
	long sum;
};

struct job {
	pthread_mutex_t *lock;
	long *sum;
	long v;
};

static void locked_add(pthread_mutex_t *m, long *p, long v)
{
	pthread_mutex_lock(m);
	*p += v;
	pthread_mutex_unlock(m);
}

static void *worker(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < NJ; i++) {
		locked_add(j->lock, j->sum, j->v);
		pthread_mutex_lock(j->lock);
		*j->sum += 1;
		pthread_mutex_unlock(j->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct job jobs[NT];
	struct pool *pool = malloc(sizeof(*pool));

	if (pool == NULL)
		return 1;
	pthread_mutex_init(&pool->lock, NULL);
	pool->sum = 0;
	for (long i = 0; i < NT; i++) {
		jobs[i].lock = &pool->lock;
		jobs[i].sum = &pool->sum;
		jobs[i].v = i;
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	}
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld\n", pool->sum);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
	return 0;
}
