/* SPDX-License-Identifier: MIT */
/* expect: held unlocked inside a statement nested */
/* expect: refused other processes may take it */
/* An unlock helper that returns 1 after it unlocks, so callers can write
   `return pool_unlock(&p->mu);` from predicates; a recursive mutex of
   the same program that other processes may share stays POSIX and keeps
   the helper in use, and a twin that says it
   locked (`if (!pool_lock(&p->mu)) return 0;`).  What the callers return
   must stay 1 whichever lock the helpers take and release. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static int pool_unlock(pthread_mutex_t *mu)
{
	pthread_mutex_unlock(mu);
	return 1;
}

/* and its twin, which says it locked */
static int pool_lock(pthread_mutex_t *mu)
{
	pthread_mutex_lock(mu);
	return 1;
}

#define POOL_UNLOCK(p) pool_unlock(&(p)->mu)

struct pool {
	pthread_mutex_t mu;
	int free_slots;
	long grabs;
};

static struct pool pool = { PTHREAD_MUTEX_INITIALIZER, 64, 0 };
static pthread_mutex_t registry_mu;
static int registered;

static int pool_grab(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->free_slots == 0) {
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	p->free_slots--;
	p->grabs++;
	return pool_unlock(&p->mu);
}

static int pool_put(struct pool *p)
{
	if (!pool_lock(&p->mu))
		return 0;
	p->free_slots++;
	return POOL_UNLOCK(p);
}

static int register_one(void)
{
	pool_lock(&registry_mu);
	pool_lock(&registry_mu); /* recursive: taken twice */
	registered++;
	pool_unlock(&registry_mu);
	return pool_unlock(&registry_mu);
}

static void *worker(void *arg)
{
	long got = 0;
	int i;

	(void)arg;
	for (i = 0; i < 5000; i++) {
		if (pool_grab(&pool))
			got += pool_put(&pool);
		if (i % 1000 == 0)
			got += register_one() * 1000000;
	}
	return (void *)got;
}

int main(void)
{
	pthread_mutexattr_t attr;
	pthread_t th[3];
	long total = 0;
	void *r;
	int i;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&registry_mu, &attr);
	pthread_mutexattr_destroy(&attr);
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("total %ld grabs %ld free %d registered %d\n", total,
	       pool.grabs, pool.free_slots, registered);
	return total == 3 * 5000 + 3 * 5 * 1000000L ? 0 : 1;
}
