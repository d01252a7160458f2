/* SPDX-License-Identifier: MIT */
/* Locals changed through macro arguments: ++ and a compound assignment
   in the macro bodies, read after the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define BUMP(x) ((x)++)
#define ADD_TO(acc, v) do { (acc) += (v); } while (0)

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long shared;

static void *worker(void *arg)
{
	long seen = 0, n = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		shared++;
		BUMP(n);
		ADD_TO(seen, 2);
		pthread_mutex_unlock(&m);
	}
	return (void *)(n * 1000 + seen);
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
		bad += (long)r != IT * 1000 + 2 * IT;
	}
	printf("shared %ld bad %ld\n", shared, bad);
	return shared == NT * IT && bad == 0 ? 0 : 1;
}
