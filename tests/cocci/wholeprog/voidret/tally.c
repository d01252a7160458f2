#include <pthread.h>
#include "tally.h"
#include "log.h"
static struct tally t = { PTHREAD_MUTEX_INITIALIZER, 0 };
static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&t.lock);
		t.n++;
		pthread_mutex_unlock(&t.lock);
	}
	log_note("done");
	return NULL;
}
long tally_run(int threads)
{
	pthread_t th[8];
	long n;

	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, adder, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_lock(&t.lock);
	n = t.n;
	pthread_mutex_unlock(&t.lock);
	return n;
}
