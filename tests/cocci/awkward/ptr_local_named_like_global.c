/*
 * A hash table striped over a few mutexes; the code picks its stripe into
 * a pointer local called `mutex`, the name the file already uses for its
 * global queue lock.  Inside the block the local hides the global; after
 * it, `mutex` is the global again, waited on with a condition.  Each name
 * must be read in its own scope: the stripes' sections go through the
 * pointer, the global's are the global's, and neither lock is kept POSIX
 * because of the other.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NSTRIPES 4
#define PER_THREAD 20000

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t stripes[NSTRIPES] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static unsigned long buckets[NSTRIPES];
static int running = 3;

static void *insert(void *arg)
{
	unsigned long seed = (unsigned long)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		{
			unsigned int h = (unsigned int)(seed >> 33) % NSTRIPES;
			pthread_mutex_t *mutex = &stripes[h];

			pthread_mutex_lock(mutex);
			buckets[h]++;
			pthread_mutex_unlock(mutex);
		}
	}
	pthread_mutex_lock(&mutex);
	if (--running == 0)
		pthread_cond_broadcast(&drained);
	pthread_mutex_unlock(&mutex);
	return NULL;
}

int main(void)
{
	pthread_t th[3];
	unsigned long sum = 0;

	for (unsigned long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, insert, (void *)(i + 1));
	pthread_mutex_lock(&mutex);
	while (running > 0)
		pthread_cond_wait(&drained, &mutex);
	pthread_mutex_unlock(&mutex);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NSTRIPES; i++)
		sum += buckets[i];
	printf("%lu entries\n", sum);
	return 0;
}
