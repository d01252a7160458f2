/* Where the pool's locks are initialised: the sites a profile names. */
#include <stdlib.h>
#include "pool.h"

struct pool *the_pool;

void pool_init(void)
{
	struct pool *p = calloc(1, sizeof(*p));

	if (p == NULL)
		abort();
	pthread_mutex_init(&p->lock, NULL);
	for (int i = 0; i < NSLOTS; i++)
		pthread_mutex_init(&p->slots[i].lock, NULL);
	pthread_mutex_init(&p->stats_lock, NULL);
	the_pool = p;
}
