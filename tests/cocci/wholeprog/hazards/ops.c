#include <pthread.h>
#include <stdio.h>
#include "hz.h"

static pthread_mutex_t ok_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t retry_lock = PTHREAD_MUTEX_INITIALIZER;
static long total, logged, balance = 1000000, checked, quits, tagged,
	parsed, retries;

long add_ok(long v)
{
	long t;

	pthread_mutex_lock(&ok_lock);
	total += scale(v);
	t = total;
	pthread_mutex_unlock(&ok_lock);
	return t;
}

long add_logged(long v)
{
	long t;

	pthread_mutex_lock(&log_lock);
	note("add");
	logged += v;
	t = logged;
	pthread_mutex_unlock(&log_lock);
	return t;
}

long take(long n)
{
	long left;

	pthread_mutex_lock(&bank_lock);
	if (n > balance)
		bail("overdraw");
	balance -= n;
	left = balance;
	pthread_mutex_unlock(&bank_lock);
	return left;
}

long check(long v)
{
	long c;

	pthread_mutex_lock(&check_lock);
	if (v < 0)
		fatal("negative");
	checked += v;
	c = checked;
	pthread_mutex_unlock(&check_lock);
	return c;
}

long quit_worker(long v)
{
	long q;

	pthread_mutex_lock(&quit_lock);
	if (v < 0)
		pthread_exit(NULL);	/* never returns: the lock stays held */
	quits += v;
	q = quits;
	pthread_mutex_unlock(&quit_lock);
	return q;
}

long tag(long v)
{
	long t;

	pthread_mutex_lock(&tag_lock);
	tagged += v + req_id;
	t = tagged;
	pthread_mutex_unlock(&tag_lock);
	return t;
}

long parse_into(const char *s)
{
	long v = 0, p;

	pthread_mutex_lock(&parse_lock);
	if (parse_num(s, &v) == 0)
		parsed += v;
	p = parsed;
	pthread_mutex_unlock(&parse_lock);
	return p;
}

long retry(long v)
{
	long r;

	pthread_mutex_lock(&retry_lock);
	step((int)v);
	retries += v;
	r = retries;
	pthread_mutex_unlock(&retry_lock);
	return r;
}
