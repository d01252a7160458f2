/* Golden: a section of stats_mutex nested in a section of req_mutex (the
   awkward program nested_counters.c): the inner section is extracted on
   its own, its call goes in the outer section's function; the length
   travels in through both contexts and the total read under stats_mutex
   comes back out through both. */
#include <pthread.h>

static pthread_mutex_t req_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nr_requests;
static unsigned long bytes_served;

unsigned long account(unsigned long len)
{
	unsigned long total;

	pthread_mutex_lock(&req_mutex);
	nr_requests++;
	pthread_mutex_lock(&stats_mutex);
	bytes_served += len;
	total = bytes_served;
	pthread_mutex_unlock(&stats_mutex);
	if (total > len)
		nr_requests += 0;
	pthread_mutex_unlock(&req_mutex);
	return total;
}

unsigned long served(void)
{
	unsigned long n;

	pthread_mutex_lock(&stats_mutex);
	n = bytes_served;
	pthread_mutex_unlock(&stats_mutex);
	return n;
}
