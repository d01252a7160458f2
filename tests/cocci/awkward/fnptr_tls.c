/* SPDX-License-Identifier: MIT */
/* A hook called under the lock through a function pointer kept in a
   structure (set up by a static initialiser) reads a thread-local
   variable: on the server thread it would read the server's copy.  The
   call's targets are the functions whose address is taken with its type:
   held. */
/* expect: held thread-local variable 'mine' in add_mine() */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

struct hook {
	void (*fn)(long *);
};

static __thread long mine;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void add_mine(long *t)
{
	*t += mine;
}

static struct hook h = { add_mine };

static void *worker(void *arg)
{
	int i;

	mine = (long)arg + 1;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		h.fn(&total);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return total == IT * (1 + 2 + 3 + 4) ? 0 : 1;
}
