#include "stats.h"

pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
long stats_done, stats_sum;

void stats_add(long v)
{
#if HAVE_STATS
	pthread_mutex_lock(&stats_lock);
	stats_done++;
	stats_sum += v;
	pthread_mutex_unlock(&stats_lock);
#else
	(void)v;
#endif
}
