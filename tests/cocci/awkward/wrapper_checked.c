/* SPDX-License-Identifier: MIT */
/* Wrappers that check the pthread call's result, as liblzma's mythread.h
   does: the result goes to a local that only an assert() and a (void)
   cast look at.  (mythread.h's wrappers also take the mutex as a
   parameter, which is not handled yet: these name their lock.) */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct coder {
	pthread_mutex_t mutex;
	long done;
};

static struct coder coder = { PTHREAD_MUTEX_INITIALIZER, 0 };

static inline void coder_lock(void)
{
	int ret = pthread_mutex_lock(&coder.mutex);
	assert(ret == 0);
	(void)ret;
}

static inline void coder_unlock(void)
{
	const int ret = pthread_mutex_unlock(&coder.mutex);

	assert(ret == 0);
	(void)ret;
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++) {
		coder_lock();
		coder.done += (long)arg + 1;
		coder_unlock();
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
	printf("done %ld\n", coder.done);
	return coder.done == 10 * IT ? 0 : 1;
}
