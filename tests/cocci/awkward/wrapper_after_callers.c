/* SPDX-License-Identifier: MIT */
/* libwget's lock wrappers on a parameter's field, prototyped at the top
   (as a header would) and defined after their callers.  Their companion
   counter_lock_rcl_exec() takes a `struct counter *`: its prototype goes
   just before the first caller, where the structure is declared (at the
   top it was another type, and the section was held). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct counter {
	pthread_mutex_t mutex;
	long n;
};
void counter_lock(struct counter *c);
void counter_unlock(struct counter *c);

static struct counter cnt = { PTHREAD_MUTEX_INITIALIZER, 0 };

static void *worker(void *arg)
{
	(void) arg;
	for (int i = 0; i < 100000; i++) {
		counter_lock(&cnt);
		cnt.n++;
		counter_unlock(&cnt);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("n=%ld\n", cnt.n);
	return 0;
}

void counter_lock(struct counter *c)
{
	pthread_mutex_lock(&c->mutex);
}

void counter_unlock(struct counter *c)
{
	pthread_mutex_unlock(&c->mutex);
}
