/* SPDX-License-Identifier: MIT */
/* A switch inside the section, with break and fall-through. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long kinds[4];

static int classify(int op)
{
	int r = 0;

	pthread_mutex_lock(&m);
	switch (op & 3) {
	case 0:
		kinds[0]++;
		r = 1;
		break;
	case 1:
		kinds[1]++;
		/* fall through */
	case 2:
		kinds[2]++;
		r = 2;
		break;
	default:
		kinds[3]++;
	}
	pthread_mutex_unlock(&m);
	return r;
}

static void *worker(void *arg)
{
	long s = 0;
	int i;

	for (i = 0; i < IT; i++)
		s += classify(i + (int)(long)arg);
	return (void *)s;
}

int main(void)
{
	pthread_t t[NT];
	long i, s = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		s += (long)r;
	}
	printf("%ld %ld %ld %ld s %ld\n", kinds[0], kinds[1], kinds[2], kinds[3], s);
	return s == NT * IT / 4 * 5 && kinds[2] == NT * IT / 2 ? 0 : 1;
}
