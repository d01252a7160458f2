/*
 * Two structures' locks initialised through the program's own init
 * functions, the way fio's pshared.c and libwebsockets do it: one sets up
 * a local attribute object and calls pthread_mutex_init() on its pointer
 * parameter, another passes its parameter on to the first, and both are
 * declared before they are defined.  The one parameter carries both
 * locks, so its type can change only if both locks are converted.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct queue {
	pthread_mutex_t lock;
	int items[64];
	int head, tail;
	long total;
};

struct tally {
	long done;
	pthread_mutex_t mutex;
	long sum;
};

int mutex_init_with_type(pthread_mutex_t *mutex, int type);
int mutex_init_default(pthread_mutex_t *mutex);

static struct queue q;
static struct tally *tally;

int mutex_init_with_type(pthread_mutex_t *mutex, int type)
{
	pthread_mutexattr_t mattr;
	int ret;

	ret = pthread_mutexattr_init(&mattr);
	if (ret) {
		fprintf(stderr, "pthread_mutexattr_init: %d\n", ret);
		return ret;
	}
	ret = pthread_mutexattr_settype(&mattr, type);
	if (ret) {
		fprintf(stderr, "pthread_mutexattr_settype: %d\n", ret);
		return ret;
	}
	ret = pthread_mutex_init(mutex, &mattr);
	if (ret) {
		fprintf(stderr, "pthread_mutex_init: %d\n", ret);
		return ret;
	}
	pthread_mutexattr_destroy(&mattr);
	return 0;
}

int mutex_init_default(pthread_mutex_t *mutex)
{
	return mutex_init_with_type(mutex, PTHREAD_MUTEX_DEFAULT);
}

static void *producer(void *arg)
{
	long n = (long)arg;

	for (long i = 1; i <= n; i++) {
		pthread_mutex_lock(&q.lock);
		q.items[q.tail++ % 64] = (int)(i % 97);
		q.total += i % 97;
		if (q.tail - q.head > 64)
			q.head++;
		pthread_mutex_unlock(&q.lock);
	}
	return NULL;
}

static void *counter(void *arg)
{
	long n = (long)arg;

	for (long i = 1; i <= n; i++) {
		pthread_mutex_lock(&tally->mutex);
		tally->done++;
		tally->sum += i;
		pthread_mutex_unlock(&tally->mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	tally = calloc(1, sizeof(*tally));
	if (!tally)
		return 1;
	if (mutex_init_default(&q.lock) ||
	    mutex_init_with_type(&tally->mutex, PTHREAD_MUTEX_NORMAL))
		return 1;
	pthread_create(&t[0], NULL, producer, (void *)20000L);
	pthread_create(&t[1], NULL, producer, (void *)20000L);
	pthread_create(&t[2], NULL, counter, (void *)30000L);
	pthread_create(&t[3], NULL, counter, (void *)30000L);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("queue: %d pushed, %d dropped, total %ld\n", q.tail, q.head,
	       q.total);
	printf("tally: %ld done, sum %ld\n", tally->done, tally->sum);
	pthread_mutex_destroy(&q.lock);
	pthread_mutex_destroy(&tally->mutex);
	free(tally);
	return 0;
}
