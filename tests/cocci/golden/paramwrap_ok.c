/* A lock wrapper that takes the mutex as a parameter (liblzma's
 * mythread.h, with its typedef), an init wrapper, and a striped lock
 * reached through a pointer local assigned once. */
#include <assert.h>
#include <pthread.h>

typedef pthread_mutex_t mythread_mutex;

static inline int mythread_mutex_init(mythread_mutex *mutex)
{
	return pthread_mutex_init(mutex, NULL);
}

static void mythread_mutex_lock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_lock(mutex);
	assert(ret == 0);
	(void)ret;
}

static void mythread_mutex_unlock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_unlock(mutex);
	assert(ret == 0);
	(void)ret;
}

struct coder {
	mythread_mutex mutex;
	unsigned long progress;
};

static pthread_mutex_t stripes[8];
static long hits[8];

void coder_init(struct coder *coder)
{
	mythread_mutex_init(&coder->mutex);
}

void stripes_init(void)
{
	int i;

	for (i = 0; i < 8; i++)
		pthread_mutex_init(&stripes[i], NULL);
}

void coder_add(struct coder *coder, unsigned long n)
{
	mythread_mutex_lock(&coder->mutex);
	coder->progress += n;
	mythread_mutex_unlock(&coder->mutex);
}

void hit(unsigned h)
{
	pthread_mutex_t *l = &stripes[h % 8];

	pthread_mutex_lock(l);
	hits[h % 8]++;
	pthread_mutex_unlock(l);
}
