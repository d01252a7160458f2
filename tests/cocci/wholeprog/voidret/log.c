#include <pthread.h>
#include <stddef.h>
#include "log.h"

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static long notes;
static int ready = 1;

/* Only the test's variant returns it: a pointer to it is one to its
 * first field, of a structure this program also locks. */
struct tally_like {
	pthread_mutex_t m;
	long n;
};
struct tally_like log_box = { PTHREAD_MUTEX_INITIALIZER, 0 };

void log_note(const char *what)
{
	pthread_mutex_lock(&log_mu);
	notes += what[0] != 0;
	pthread_mutex_unlock(&log_mu);
}

long log_count(void)
{
	long n;

	pthread_mutex_lock(&log_mu);
	n = notes;
	pthread_mutex_unlock(&log_mu);
	return n;
}

/* unbound's log_get_lock(): the lock handed out as a void pointer */
void *log_get_lock(void)
{
	if (!ready)
		return NULL;
	return (void *)&log_mu;
}
