/* SPDX-License-Identifier: MIT */
/* errno set inside the section and read by the caller after it: the
   section's errno must come back to the calling thread. */
/* expect: transformed */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long avail = 1000;

static int reserve(long n)
{
	pthread_mutex_lock(&m);
	if (n > avail) {
		errno = ENOSPC;
		pthread_mutex_unlock(&m);
		return -1;
	}
	avail -= n;
	pthread_mutex_unlock(&m);
	return 0;
}

static void *worker(void *arg)
{
	long nospc = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		if (reserve(1) < 0 && errno == ENOSPC)
			nospc++;
	return (void *)nospc;
}

int main(void)
{
	pthread_t t[NT];
	long i, nospc = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		nospc += (long)r;
	}
	printf("avail %ld nospc %ld\n", avail, nospc);
	return avail == 0 && nospc == NT * IT - 1000 ? 0 : 1;
}
