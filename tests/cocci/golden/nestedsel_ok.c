/* Golden: nested_ok.c with --locks req_mutex only: stats_mutex is not
   selected, so its lock and unlock calls stay pthread calls inside the
   extracted section of req_mutex (taken and released on the thread that
   runs it), and its section in served() stays as it is. */
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
