/* SPDX-License-Identifier: MIT */
/* expect: refused lock queue_s.mut stays POSIX */
/* expect: held lock taken conditionally */
/* Two structures have a mutex named `mut`.  A destructor declares its
   object through a macro that pastes the type's name (rsyslog's
   BEGINobjDestruct(qqueue) declares `qqueue_t *pThis`), and hands the
   queue's mutex to a watchdog.  Read as text, `pThis->mut` could be
   either structure's, so the stream's lock was refused with the
   queue's; the compiler knows it is the queue's.  The stream's own
   section, taken only when the caller does not hold it, is held. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct queue_s {
	pthread_mutex_t mut;
	int items;
} queue_t;

typedef struct strm_s {
	pthread_mutex_t mut;
	long total;
} strm_t;

#define BEGINdestruct(obj) static void obj##Destruct(obj##_t *pThis) {
#define ENDdestruct }

static pthread_mutex_t *watched; /* the watchdog's */

BEGINdestruct(queue)
	watched = &pThis->mut;
	printf("queue destroyed with %d items\n", pThis->items);
ENDdestruct

static void queue_put(queue_t *q)
{
	pthread_mutex_lock(&q->mut);
	q->items++;
	pthread_mutex_unlock(&q->mut);
}

static void strm_add(strm_t *s, long v, int caller_holds)
{
	if (!caller_holds)
		pthread_mutex_lock(&s->mut);
	s->total += v;
	if (!caller_holds)
		pthread_mutex_unlock(&s->mut);
}

static strm_t strm = {PTHREAD_MUTEX_INITIALIZER, 0};

static void *writer(void *arg)
{
	for (long i = 0; i < 20000; i++)
		strm_add(&strm, (long)arg, 0);
	return NULL;
}

int main(void)
{
	queue_t *q = calloc(1, sizeof(*q));
	pthread_t tid[4];

	pthread_mutex_init(&q->mut, NULL);
	q->items = 2;
	queue_put(q);
	for (long i = 0; i < 4; i++)
		pthread_create(&tid[i], NULL, writer, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_lock(&strm.mut);
	strm_add(&strm, 5, 1);
	pthread_mutex_unlock(&strm.mut);
	printf("total %ld\n", strm.total);
	queueDestruct(q);
	printf("watchdog has %s\n", watched == &q->mut ? "the queue" : "?");
	pthread_mutex_destroy(&q->mut);
	free(q);
	return 0;
}
