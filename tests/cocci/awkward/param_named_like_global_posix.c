/*
 * The same helper shape, but the address of the lock its parameter carries
 * is also kept in a table the tool does not follow: that lock stays POSIX,
 * and so does the helper's section, whose parameter keeps its pthread
 * type.  The global of the same name as the
 * parameter is still converted, and the helper must not be rewritten as
 * if it locked the global.
 */
/* expect: refused lock stats_mu stays POSIX */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long queue_len, stats_bytes;
static pthread_mutex_t *registry[1];

static void account(pthread_mutex_t *mutex, long *field, long n)
{
	pthread_mutex_lock(mutex);
	*field += n;
	pthread_mutex_unlock(mutex);
}

static void *producer(void *arg)
{
	for (int i = 0; i < 30000; i++) {
		pthread_mutex_lock(&mutex);
		queue_len++;
		pthread_mutex_unlock(&mutex);
		account(&stats_mu, &stats_bytes, 3);
	}
	return arg;
}

int main(void)
{
	pthread_t th[3];

	registry[0] = &stats_mu;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("queue %ld, bytes %ld, registry %s\n", queue_len, stats_bytes,
	       registry[0] == &stats_mu ? "ok" : "wrong");
	return 0;
}
