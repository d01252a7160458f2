/* SPDX-License-Identifier: MIT */
/* A structure whose debugging members, under an #ifdef the build leaves
   out, come before its mutex, and a static initialiser for each build
   (icecast's mutex_t in thread.h and _threadtree_mutex in thread.c).
   The initialiser the compiler reads gives its first value to the mutex:
   the members it skips take no position (they did, and the lock stayed
   POSIX, "initialises a field the tool cannot tell"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct counter {
#ifdef COUNTER_DEBUG
	long owner_id;
	const char *where;
#endif
	pthread_mutex_t lock;
	long n;
};

#ifdef COUNTER_DEBUG
static struct counter c = { -1, NULL, PTHREAD_MUTEX_INITIALIZER, 0 };
#else
static struct counter c = { PTHREAD_MUTEX_INITIALIZER, 0 };
#endif

#define NT 4
#define IT 1000

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&c.lock);
		c.n++;
		pthread_mutex_unlock(&c.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("n %ld\n", c.n);
	return c.n == (long)NT * IT ? 0 : 1;
}
