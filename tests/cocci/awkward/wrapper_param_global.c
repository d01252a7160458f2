/*
 * Wrappers whose parameter has the name of a global lock of the program:
 * libwebsockets' public header wraps pthread_mutex_init() as
 * lws_pthread_mutex_init(pthread_mutex_t *lock), and one of its examples
 * has its own `static pthread_mutex_t lock`.  The wrappers' parameter is
 * no lock of its own: the global is converted, and so is the structure's
 * lock that goes through the wrappers.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock;
static long attached;

struct counter {
	pthread_mutex_t mu;
	long n;
};

static inline void my_mutex_init(pthread_mutex_t *lock)
{
	pthread_mutex_init(lock, NULL);
}

static inline void my_mutex_lock(pthread_mutex_t *lock)
{
	pthread_mutex_lock(lock);
}

static inline void my_mutex_unlock(pthread_mutex_t *lock)
{
	pthread_mutex_unlock(lock);
}

static struct counter hits;

static void *work(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&lock);
		attached += 2;
		pthread_mutex_unlock(&lock);
		my_mutex_lock(&hits.mu);
		hits.n++;
		my_mutex_unlock(&hits.mu);
	}
	return arg;
}

int main(void)
{
	pthread_t t[3];

	pthread_mutex_init(&lock, NULL);
	my_mutex_init(&hits.mu);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", attached, hits.n);
	pthread_mutex_destroy(&lock);
	pthread_mutex_destroy(&hits.mu);
	return 0;
}
