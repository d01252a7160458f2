/* SPDX-License-Identifier: MIT */
/* A mutex field declared by a macro that two structures expand changes
 * type in both at once: when one stays POSIX (here, a positional
 * initialiser the tool cannot map to a member, since the macro's members
 * are not in the file's text), so does the other.  A field an anonymous
 * structure also gets from the macro, which the tool cannot name, keeps
 * the macro's other structures POSIX too. */
#include <pthread.h>

#define SYNC_FIELDS \
	pthread_mutex_t mu; \
	long n;

struct reader {
	int fd;
	SYNC_FIELDS
};

struct writer {
	SYNC_FIELDS
};

#define STAT_FIELDS \
	pthread_mutex_t smu; \
	long hits;

struct cache {
	STAT_FIELDS
	struct {
		STAT_FIELDS
	} shadow;
};

static struct cache cache;
static struct reader rd;
static struct writer wr = { PTHREAD_MUTEX_INITIALIZER, 0 };

void setup(void)
{
	pthread_mutex_init(&rd.mu, NULL);
	pthread_mutex_init(&cache.smu, NULL);
}

void hit(void)
{
	pthread_mutex_lock(&cache.smu);
	cache.hits++;
	pthread_mutex_unlock(&cache.smu);
}

void count(void)
{
	pthread_mutex_lock(&rd.mu);
	rd.n++;
	pthread_mutex_unlock(&rd.mu);
	pthread_mutex_lock(&wr.mu);
	wr.n++;
	pthread_mutex_unlock(&wr.mu);
}
