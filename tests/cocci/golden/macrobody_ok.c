/* Golden: sections inside a macro's body are held sections: the lock
 * calls of the #define (pthread's, or a lock macro's) become liblock's,
 * since every expansion names the converted field.  A lock saved by
 * value and put back keeps the lock convertible. */
#include <pthread.h>
#include <string.h>

#define JLOCK(m) pthread_mutex_lock((m))

struct engine {
	pthread_mutex_t stats_mutex;
	long allocs, errors;
};

#define STAT_INCR(e, stat, amount) { \
    pthread_mutex_lock(&e->stats_mutex); \
    e->stat += amount; \
    pthread_mutex_unlock(&e->stats_mutex); \
}

#define FAIL(err) do { \
    JLOCK(&eng->stats_mutex); \
    eng->errors = (err); \
    pthread_mutex_unlock(&eng->stats_mutex); \
    goto fail; \
} while (0)

int alloc_page(struct engine *eng, int n)
{
	if (n < 0)
		FAIL(n);
	STAT_INCR(eng, allocs, n);
	return 0;
fail:
	return -1;
}

long read_allocs(struct engine *e)
{
	long a;

	pthread_mutex_lock(&e->stats_mutex);
	a = e->allocs;
	pthread_mutex_unlock(&e->stats_mutex);
	return a;
}

void reset(struct engine *e)
{
	pthread_mutex_t const saved = e->stats_mutex;

	memset(e, 0, sizeof(*e));
	e->stats_mutex = saved;
}

void setup(struct engine *e)
{
	pthread_mutex_init(&e->stats_mutex, NULL);
}
