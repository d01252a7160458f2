/* SPDX-License-Identifier: MIT */
/* A bucket table whose lock is looked up by a function returning the
   pthread_mutex_t * (declared before it is defined), kept in locals and
   passed down to helpers: one takes a pthread_mutex_t * and unlocks it
   after its own work, another takes the lock as a void * handle and
   hands it on.  The lock's address only ever reaches lock calls, tests
   and those helpers, so the table is converted and every pointer that
   carries it becomes a liblock_lock_t * (the prototype too); sections
   locked through them run in place (held). */
/* expect: held unlock in another function */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 3000
#define NB 4

static pthread_mutex_t bucket_locks[NB];
static long bucket[NB], moves[NB];

static pthread_mutex_t *lock_of(int b);

static void finish(pthread_mutex_t *m, int b)
{
	bucket[b]++;
	pthread_mutex_unlock(m);
}

static void finish_handle(void *h, int b)
{
	moves[b]++;
	finish(h, b);
}

static pthread_mutex_t *lock_of(int b)
{
	return &bucket_locks[b % NB];
}

static void add(int b)
{
	pthread_mutex_t *m = lock_of(b);

	pthread_mutex_lock(m);
	bucket[b % NB]++;
	pthread_mutex_unlock(m);
}

static void add_twice(int b)
{
	void *h;

	h = lock_of(b);
	if (h == NULL)
		return;
	pthread_mutex_lock((pthread_mutex_t *)h);
	bucket[b % NB]++;
	finish_handle(h, b % NB);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		add((int)(i + id));
		add_twice((int)(i * 3 + id));
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0, nmoves = 0;

	for (i = 0; i < NB; i++)
		pthread_mutex_init(&bucket_locks[i], NULL);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NB; i++) {
		sum += bucket[i];
		nmoves += moves[i];
	}
	printf("sum %ld (want %d) moves %ld\n", sum, NT * IT * 3, nmoves);
	return sum == NT * IT * 3 ? 0 : 1;
}
