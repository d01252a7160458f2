/* SPDX-License-Identifier: MIT */
/* Facts libclang gives the tool: the mutex type through a chain of
 * typedefs from a header (lib_mutex_t, then pool_mutex_t); mutex fields
 * declared by a macro that two structures expand (the macro's type is
 * rewritten once, for both); a field of another type named like a lock
 * field, whose address goes to a function (not a use of the lock); and
 * a section in the #else branch the compiler reads. */
#include "cfmutex.h"

typedef lib_mutex_t pool_mutex_t;

struct pool {
	pool_mutex_t mutex;
	long items;
};

#define QUEUE_FIELDS \
	pthread_mutex_t qlock; \
	long queued;

struct in_queue {
	int id;
	QUEUE_FIELDS
};

struct out_queue {
	QUEUE_FIELDS
};

struct token {
	int mutex;
};

static struct pool pool;
static struct in_queue inq;
static struct out_queue outq;
static struct token tok;

static void take(int *t)
{
	(*t)++;
}

void setup(void)
{
	pthread_mutex_init(&pool.mutex, NULL);
	pthread_mutex_init(&inq.qlock, NULL);
	pthread_mutex_init(&outq.qlock, NULL);
	take(&tok.mutex);
}

void add(long n)
{
	pthread_mutex_lock(&pool.mutex);
	pool.items += n;
	pthread_mutex_unlock(&pool.mutex);
}

void push(int out)
{
	if (out) {
		pthread_mutex_lock(&outq.qlock);
		outq.queued++;
		pthread_mutex_unlock(&outq.qlock);
	} else {
#ifdef QUEUE_STATS_ONLY
		inq.queued += 2;
#else
		pthread_mutex_lock(&inq.qlock);
		inq.queued++;
		pthread_mutex_unlock(&inq.qlock);
#endif
	}
}
