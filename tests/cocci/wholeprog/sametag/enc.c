/* The encoder's structures, named like the decoder's: typedef names
 * equal to dec.c's tags, on structures with other tags. */
#include <pthread.h>
#include <stdlib.h>
#include "sync.h"
#include "tally.h"

typedef struct worker_s worker;
typedef struct coder_s coder;

struct worker_s {
	pthread_mutex_t mutex;
	long blocks;
};

struct coder_s {
	pthread_mutex_t mutex;
	worker *threads;
	int nthreads;
	long bytes;
	long empty;
};

static coder *enc_state;

void enc_init(int nthreads)
{
	coder *c = calloc(1, sizeof(*c));

	if (c == NULL)
		abort();
	c->threads = calloc((size_t)nthreads, sizeof(worker));
	if (c->threads == NULL)
		abort();
	c->nthreads = nthreads;
	pthread_mutex_init(&c->mutex, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_mutex_init(&c->threads[i].mutex, NULL);
	enc_state = c;
}

void enc_step(int id, long n)
{
	coder *c = enc_state;

	pthread_mutex_lock(&c->threads[id % c->nthreads].mutex);
	c->threads[id % c->nthreads].blocks++;
	pthread_mutex_unlock(&c->threads[id % c->nthreads].mutex);

	pthread_mutex_lock(&tally.lock);
	tally.events += 2;
	pthread_mutex_unlock(&tally.lock);

	sync_lock(&c->mutex);
	if (n == 0) {
		c->empty++;
		sync_unlock(&c->mutex);
		return;
	}
	c->bytes += n;
	sync_unlock(&c->mutex);
}

long enc_total(void)
{
	coder *c = enc_state;
	long t = 0;

	sync_lock(&c->mutex);
	t = c->bytes + 1000 * c->empty;
	sync_unlock(&c->mutex);
	for (int i = 0; i < c->nthreads; i++) {
		pthread_mutex_lock(&c->threads[i].mutex);
		t += c->threads[i].blocks;
		pthread_mutex_unlock(&c->threads[i].mutex);
	}
	return t;
}
