/* Golden: sections taken through macros from a project header, on a
 * structure field declared in that header. */
#include "locks.h"

struct stats global_stats = { .hits = 0 };

void hit(struct stats *s, int miss)
{
	LOCK(s->lock);
	if (miss)
		s->misses++;
	else
		s->hits++;
	UNLOCK(s->lock);
}

void stats_setup(void)
{
	pthread_mutex_init(&global_stats.lock, NULL);
}
