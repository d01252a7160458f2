/* SPDX-License-Identifier: MIT */
/* dav1d's include/dav1d/dav1d.h declares its types inside the guard that
   lets C++ include the header, `extern "C" {`.  Those typedefs were
   skipped with the braces, so `c->sched.lock` had no known structure:
   "cannot tell which structure's field 'lock'", and every structure
   with a field of that name stayed POSIX (dav1d: all of its locks). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct Decoder Decoder;
typedef struct Pool Pool;

#ifdef __cplusplus
}
#endif

struct Sched {
	pthread_mutex_t lock;
	int queued;
};

struct Decoder {
	struct Sched sched;
	long frames;
};

struct Pool {
	pthread_mutex_t lock;
	int free_bufs;
};

static Decoder dec = { { PTHREAD_MUTEX_INITIALIZER, 0 }, 0 };
static Pool pool = { PTHREAD_MUTEX_INITIALIZER, 8 };

static void decode_one(Decoder *c, Pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->free_bufs--;
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_lock(&c->sched.lock);
	c->sched.queued++;
	c->frames++;
	pthread_mutex_unlock(&c->sched.lock);
	pthread_mutex_lock(&p->lock);
	p->free_bufs++;
	pthread_mutex_unlock(&p->lock);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		decode_one(&dec, &pool);
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("frames %ld queued %d free %d\n", dec.frames, dec.sched.queued,
	       pool.free_bufs);
	return dec.frames == 60000 && pool.free_bufs == 8 ? 0 : 1;
}
