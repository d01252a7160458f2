/* SPDX-License-Identifier: MIT */
/* A structure declared in the section is linked into a shared list by
   address and unlinked later in the same block: it must outlive the
   section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

struct waiter {
	struct waiter *next;
	long id;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *waiters;
static long linked;

static void push(struct waiter *w)
{
	w->next = waiters;
	waiters = w;
}

static long unlink_waiter(struct waiter *w)
{
	struct waiter **pp;

	for (pp = &waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			return w->id;
		}
	return -1;
}

static void *worker(void *arg)
{
	long bad = 0, got;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		struct waiter me;
		me.id = (long)arg * 1000 + i;
		push(&me);
		linked++;
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m);
		got = unlink_waiter(&me);
		pthread_mutex_unlock(&m);
		if (got != (long)arg * 1000 + i)
			bad++;
	}
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("linked %ld bad %ld left %p\n", linked, bad, (void *)waiters);
	return linked == NT * IT && bad == 0 && !waiters ? 0 : 1;
}
