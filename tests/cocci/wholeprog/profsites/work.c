/* The sections: one per lock in pool_hit(), and a slot's section nested
 * in the pool's in pool_sum(). */
#include "pool.h"

void pool_hit(int i)
{
	struct pool *p = the_pool;

	pthread_mutex_lock(&p->slots[i % NSLOTS].lock);
	p->slots[i % NSLOTS].hits++;
	pthread_mutex_unlock(&p->slots[i % NSLOTS].lock);
	pthread_mutex_lock(&p->lock);
	p->total++;
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_lock(&p->stats_lock);
	p->calls++;
	pthread_mutex_unlock(&p->stats_lock);
}

long pool_sum(void)
{
	struct pool *p = the_pool;
	long t;

	pthread_mutex_lock(&p->lock);
	t = p->total;
	for (int i = 0; i < NSLOTS; i++) {
		pthread_mutex_lock(&p->slots[i].lock);
		t += p->slots[i].hits;
		pthread_mutex_unlock(&p->slots[i].lock);
	}
	pthread_mutex_unlock(&p->lock);
	return t;
}

long pool_calls(void)
{
	return the_pool->calls;
}
