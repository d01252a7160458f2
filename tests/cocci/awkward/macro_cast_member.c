/* SPDX-License-Identifier: MIT */
/* apr's locks/unix/proc_mutex.c: an anonymous structure, typedef'd, that
   lives behind a void * of a handle, and macros to reach it that cast
   that pointer: `#define box_of(h) ((shared_box *)(h)->area)` and
   `#define box_mutex(h) (box_of(h)->mutex)`, used as
   `pthread_mutex_lock(&box_mutex(h))`.  Beside it, another structure has
   a field named `mutex` too (apr_thread_mutex_t, the hot one).  The tool
   read the macro body's `->mutex` as a use of every structure's `mutex`,
   so the other structure's lock stayed POSIX ("used inside macro"), and
   could not name the lock of `&box_mutex(h)` (a cast reads like a call).
   The compiler knows both: the member at each expansion, and that no
   call is in its object expression. */
/* expect: held the lock call's result is used */
#include <pthread.h>
#include <stdio.h>

struct plain_mutex {
	pthread_mutex_t mutex;
	long taken;
};

struct handle {
	const char *name;
	void *area;
};

typedef struct {
#define box_of(h) ((shared_box *)(h)->area)
	pthread_mutex_t mutex;
#define box_mutex(h) (box_of(h)->mutex)
	long hits;
	long peeks;
} shared_box;

static int plain_lock(struct plain_mutex *m)
{
	return pthread_mutex_lock(&m->mutex);
}

static int plain_unlock(struct plain_mutex *m)
{
	return pthread_mutex_unlock(&m->mutex);
}

static struct plain_mutex counter = { PTHREAD_MUTEX_INITIALIZER, 0 };
static shared_box the_box = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static struct handle box_handle = { "box", &the_box };

/* the result of the lock call decides: this section stays in place */
static int box_hit(struct handle *h)
{
	int rv;

	if ((rv = pthread_mutex_lock(&box_mutex(h))) != 0)
		return rv;
	box_of(h)->hits++;
	return pthread_mutex_unlock(&box_mutex(h));
}

/* a statement: this one is delegated */
static void box_peek(struct handle *h, long *seen)
{
	pthread_mutex_lock(&box_mutex(h));
	box_of(h)->peeks++;
	*seen = box_of(h)->hits;
	pthread_mutex_unlock(&box_mutex(h));
}

#define ROUNDS 20000
#define THREADS 4

static void *worker(void *arg)
{
	long seen = 0, last = 0;

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		if (plain_lock(&counter) != 0)
			return "plain_lock";
		counter.taken++;
		if (plain_unlock(&counter) != 0)
			return "plain_unlock";
		if (box_hit(&box_handle) != 0)
			return "box_hit";
		box_peek(&box_handle, &seen);
		if (seen < last)
			return "hits went back";
		last = seen;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	int bad = 0;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		if (r) {
			printf("thread %d: %s\n", i, (const char *)r);
			bad = 1;
		}
	}
	printf("%s: taken %ld hits %ld peeks %ld\n", box_handle.name,
	       counter.taken, the_box.hits, the_box.peeks);
	return bad || counter.taken != ROUNDS * THREADS ||
	       the_box.hits != ROUNDS * THREADS ||
	       the_box.peeks != ROUNDS * THREADS;
}
