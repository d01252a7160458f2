/* Golden: shapes from memcached's thread.c and memcached.c.  A section
 * resets per-thread counters through an X-macro list it #defines X for
 * (the locals X names travel in the context); a probe macro that expands
 * to nothing is the only reader of an input; a section in an #ifdef the
 * build leaves out keeps its extracted function under the same #if; the
 * lock wrappers have prototypes. */
/* #undef T_TLS */
#include <pthread.h>

#define STATS_FIELDS X(gets) X(sets)
#define PROBE(a, b)

struct tstats {
	pthread_mutex_t mutex;
	long gets, sets, errors;
};

static struct tstats threads[4];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long handshake_errors;

void STATS_LOCK(void);
void STATS_UNLOCK(void);

void STATS_LOCK(void)
{
	pthread_mutex_lock(&stats_lock);
}

void STATS_UNLOCK(void)
{
	pthread_mutex_unlock(&stats_lock);
}

void reset(int n)
{
	int ii;

	for (ii = 0; ii < n; ii++) {
		pthread_mutex_lock(&threads[ii].mutex);
#define X(name) threads[ii].name = 0;
		STATS_FIELDS
#undef X
		threads[ii].errors = 0;
		pthread_mutex_unlock(&threads[ii].mutex);
	}
}

void count_get(struct tstats *t, const char *key)
{
	pthread_mutex_lock(&t->mutex);
	t->gets++;
	PROBE(key, t->gets);
	pthread_mutex_unlock(&t->mutex);
}

void accept_one(int fail)
{
#ifdef T_TLS
	if (fail) {
		STATS_LOCK();
		handshake_errors++;
		STATS_UNLOCK();
	}
#endif
	(void)fail;
}

void init(void)
{
	int i;

	for (i = 0; i < 4; i++)
		pthread_mutex_init(&threads[i].mutex, NULL);
}
