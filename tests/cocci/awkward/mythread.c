/* SPDX-License-Identifier: MIT */
/* liblzma's mythread.h: a typedef of the mutex type and static inline
   wrappers that take the mutex, assert on pthread's result and silence
   the unused variable when NDEBUG is defined. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

typedef pthread_mutex_t mythread_mutex;

static inline int mythread_mutex_init(mythread_mutex *mutex)
{
	return pthread_mutex_init(mutex, NULL);
}

static inline void mythread_mutex_destroy(mythread_mutex *mutex)
{
	int ret = pthread_mutex_destroy(mutex);
	assert(ret == 0);
	(void)ret;
}

static inline void mythread_mutex_lock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_lock(mutex);
	assert(ret == 0);
	(void)ret;
}

static inline void mythread_mutex_unlock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_unlock(mutex);
	assert(ret == 0);
	(void)ret;
}

struct lzma_stream_coder {
	mythread_mutex mutex;
	unsigned long long progress_in;
	unsigned long long progress_out;
};

static void progress_add(struct lzma_stream_coder *coder, unsigned in,
			 unsigned out)
{
	mythread_mutex_lock(&coder->mutex);
	coder->progress_in += in;
	coder->progress_out += out;
	mythread_mutex_unlock(&coder->mutex);
}

static void *worker(void *arg)
{
	struct lzma_stream_coder *coder = arg;
	unsigned i;

	for (i = 0; i < IT; i++)
		progress_add(coder, i % 7, i % 5);
	return NULL;
}

int main(void)
{
	struct lzma_stream_coder coder = { .progress_in = 0 };
	pthread_t t[NT];
	int i;

	if (mythread_mutex_init(&coder.mutex))
		return 1;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &coder);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	mythread_mutex_destroy(&coder.mutex);
	printf("in %llu out %llu\n", coder.progress_in, coder.progress_out);
	return 0;
}
