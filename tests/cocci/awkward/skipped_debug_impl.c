/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Two structures name their mutex `_mutex` (as the LZMA SDK's CEvent
   and CSemaphore do, embedded in lrzip), and a debug build swaps in
   other definitions of the functions that take them, under an #ifdef
   this build leaves out.  The lock calls there name the lock through a
   typed parameter or local of the skipped function: they are renamed
   with that structure's lock.  Read as "every structure's `_mutex`",
   they kept both structures' locks POSIX. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define POSTS 10000

struct event {
	pthread_mutex_t _mutex;
	int signalled;
};

struct semaphore {
	pthread_mutex_t _mutex;
	long count;
};

#ifdef TRACE_SYNC
static struct semaphore *traced;

void event_signal(struct event *ev)
{
	struct semaphore *s = traced;

	pthread_mutex_lock(&ev->_mutex);
	ev->signalled = 1;
	fprintf(stderr, "event %p set\n", (void *)ev);
	pthread_mutex_unlock(&ev->_mutex);
	pthread_mutex_lock(&s->_mutex);
	fprintf(stderr, "semaphore at %ld\n", s->count);
	pthread_mutex_unlock(&s->_mutex);
}
#else
void event_signal(struct event *ev)
{
	pthread_mutex_lock(&ev->_mutex);
	ev->signalled = 1;
	pthread_mutex_unlock(&ev->_mutex);
}
#endif

static void semaphore_post(struct semaphore *s)
{
	pthread_mutex_lock(&s->_mutex);
	s->count++;
	pthread_mutex_unlock(&s->_mutex);
}

static struct event done_event;
static struct semaphore posts;

static void *poster(void *arg)
{
	(void)arg;
	for (int i = 0; i < POSTS; i++)
		semaphore_post(&posts);
	event_signal(&done_event);
	return NULL;
}

int main(void)
{
	pthread_t tid[NTHREADS];

	pthread_mutex_init(&done_event._mutex, NULL);
	pthread_mutex_init(&posts._mutex, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&tid[i], NULL, poster, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);
	printf("posts %ld, event %d\n", posts.count, done_event.signalled);
	pthread_mutex_destroy(&posts._mutex);
	pthread_mutex_destroy(&done_event._mutex);
	return 0;
}
