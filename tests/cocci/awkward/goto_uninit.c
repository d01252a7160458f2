/* SPDX-License-Identifier: MIT */
/* `ret` set on every path to the label, uninitialised before it. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long level, rejected;

static int push(long v)
{
	int ret;

	pthread_mutex_lock(&m);
	if (level + v > 1000) {
		rejected++;
		ret = -1;
		goto out;
	}
	level += v;
	ret = 0;
out:
	pthread_mutex_unlock(&m);
	return ret;
}

static void *worker(void *arg)
{
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		ok += push(1) == 0;
	return (void *)ok;
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("level %ld ok %ld rejected %ld\n", level, ok, rejected);
	return level == 1000 && ok == 1000 && rejected == NT * IT - 1000 ? 0 : 1;
}
