/* SPDX-License-Identifier: MIT */
/* GCC's `__restrict__` spelling in the declarations a section uses: a
   parameter `struct box *__restrict__ const b` and a local declared the
   same way (rsyslog's omfile.c writes its instance data so).  The lock is
   named through them: its sections are extracted like any other, and the
   one that must stay in place (it asks pthread_self()) has its calls
   converted to liblock's on the same lock. */
/* expect: held pthread_self() */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 2000

struct box {
	pthread_mutex_t mu;
	long n;
};

static struct box shared = { PTHREAD_MUTEX_INITIALIZER, 0 };

static void add(struct box *__restrict__ const b, long v)
{
	pthread_mutex_lock(&b->mu);
	b->n += v;
	pthread_mutex_unlock(&b->mu);
}

static void *worker(void *arg)
{
	struct box *__restrict__ const b = arg;
	pthread_t me = pthread_self();
	long i, seen = 0;

	for (i = 0; i < IT; i++) {
		add(b, 2);
		pthread_mutex_lock(&b->mu);
		seen += b->n > 0;
		b->n--;
		pthread_mutex_unlock(&b->mu);
		pthread_mutex_lock(&b->mu);
		seen += pthread_equal(pthread_self(), me) - 1;
		pthread_mutex_unlock(&b->mu);
	}
	return (void *)seen;
}

int main(void)
{
	pthread_t t[NT];
	long i, tot = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &shared);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		tot += (long)r;
	}
	printf("n %ld seen %ld\n", shared.n, tot);
	return shared.n == (long)NT * IT && tot == (long)NT * IT ? 0 : 1;
}
