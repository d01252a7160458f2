/* Golden: errno travels with the section.  The section sees the caller's
 * errno and the caller gets the section's back (in.rcl_errno before
 * liblock_exec(), out.rcl_errno after), also when a function the section
 * calls sets it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m_err = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m_conv = PTHREAD_MUTEX_INITIALIZER;
static long budget = 10;
static long total;

int spend(long n)
{
	int rc = 0;

	pthread_mutex_lock(&m_err);
	if (n > budget) {
		errno = ENOSPC;
		rc = -1;
	} else {
		budget -= n;
	}
	pthread_mutex_unlock(&m_err);
	return rc;
}

static long parse(const char *s)
{
	errno = 0;
	return strtol(s, NULL, 10);
}

long add(const char *s)
{
	long t;

	pthread_mutex_lock(&m_conv);
	total += parse(s);
	t = total;
	pthread_mutex_unlock(&m_conv);
	return t;
}
