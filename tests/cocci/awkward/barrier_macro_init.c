/*
 * A barrier type whose static initialiser is a function-like macro that
 * gives its mutex, its condition and its count, used positionally inside
 * the initialiser of an anonymous configuration structure, the way a
 * server's main.c lists its settings one per line (h2o's
 * `H2O_BARRIER_INITIALIZER(SIZE_MAX)` in `conf`).  Workers meet at the
 * barrier, then add to a total under the configuration's own lock.
 */
/* expect: transformed */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

typedef struct st_meet_t {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	size_t count;
} meet_t;

#define MEET_INITIALIZER(n) {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, n}

static void meet_wait(meet_t *m)
{
	pthread_mutex_lock(&m->mutex);
	if (--m->count == 0)
		pthread_cond_broadcast(&m->cond);
	else
		while (m->count != 0)
			pthread_cond_wait(&m->cond, &m->mutex);
	pthread_mutex_unlock(&m->mutex);
}

#define NTHREADS 4

static struct {
	const char *name;
	int verbose;
	struct {
		int lo, hi;
	} range;
	meet_t start;
	pthread_mutex_t total_lock;
	long total;
} conf = {
	"meet",                     /* name */
	0,                          /* verbose */
	{1, 1000},                  /* range */
	MEET_INITIALIZER(NTHREADS), /* start */
	PTHREAD_MUTEX_INITIALIZER,  /* total_lock */
	0,                          /* total */
};

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;

	meet_wait(&conf.start);
	for (int i = conf.range.lo; i <= conf.range.hi; i++)
		if (i % NTHREADS == id)
			sum += i;
	pthread_mutex_lock(&conf.total_lock);
	conf.total += sum;
	pthread_mutex_unlock(&conf.total_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];

	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("%s: total %ld, left %zu\n", conf.name, conf.total,
	       conf.start.count);
	return conf.total == 500500 ? 0 : 1;
}
