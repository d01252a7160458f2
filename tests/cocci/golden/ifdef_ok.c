/* Golden: lock macros defined under #if/#ifdef in a header, with the
 * condition given by -D (ifdef_ok.args); _WIN32 is unknown, so both of
 * its branches are read and the pthread one is used. */
#include "mtlocks.h"

struct tally {
	pthread_mutex_t mu;
	long n;
};

static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

long tally_add(struct tally *t, long v)
{
	long n;

	T_mutex_lock(&t->mu);
	t->n += v;
	n = t->n;
	T_mutex_unlock(&t->mu);
	return n;
}

void total_add(long v)
{
	T_LOCK2(total_mu);
	total += v;
	T_UNLOCK2(total_mu);
}
