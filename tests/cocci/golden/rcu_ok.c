/* SPDX-License-Identifier: MIT */
/* Knot DNS reads its configuration between rcu_read_lock() and
 * rcu_read_unlock() of liburcu (<urcu.h>, the memb flavour), whose
 * synchronize_rcu() waits for the registered threads' read-side
 * sections.  The read-side calls work on the calling thread's reader
 * record: on the server thread, not registered, a grace period would not
 * wait for the section.  The section that reads under RCU stays in
 * place; the one that does not is delegated. */
#include <pthread.h>
#include <urcu.h>

struct conf {
	int limit;
};

static struct conf *current;
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long served, over;

void account(int n)
{
	pthread_mutex_lock(&stats_mu);
	rcu_read_lock();
	if (n > rcu_dereference(current)->limit)
		over++;
	rcu_read_unlock();
	served++;
	pthread_mutex_unlock(&stats_mu);
}

long total(void)
{
	long n;

	pthread_mutex_lock(&stats_mu);
	n = served;
	pthread_mutex_unlock(&stats_mu);
	return n;
}
