/* The decoder's own structures: tags, no typedefs. */
#include <pthread.h>
#include "sync.h"
#include "tally.h"

tally_t tally = { PTHREAD_MUTEX_INITIALIZER, 0 };

struct worker {
	pthread_mutex_t mutex;
	long done;
};

struct coder {
	pthread_mutex_t mutex;
	struct worker threads[2];
	long total;
};

static struct coder dec_state = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
	.threads = { { PTHREAD_MUTEX_INITIALIZER, 0 },
		     { PTHREAD_MUTEX_INITIALIZER, 0 } },
};

void dec_step(int id, long n)
{
	struct coder *c = &dec_state;
	struct worker *w = &c->threads[id & 1];

	pthread_mutex_lock(&w->mutex);
	w->done += n;
	pthread_mutex_unlock(&w->mutex);

	sync_lock(&c->mutex);
	c->total += n;
	sync_unlock(&c->mutex);

	pthread_mutex_lock(&tally.lock);
	tally.events++;
	pthread_mutex_unlock(&tally.lock);
}

long dec_total(void)
{
	struct coder *c = &dec_state;
	long t;

	sync_lock(&c->mutex);
	t = c->total + c->threads[0].done + c->threads[1].done;
	sync_unlock(&c->mutex);
	return t;
}
