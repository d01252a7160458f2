/* Golden: the section ends in an if/else that releases the lock in each
   branch; the code after each unlock runs after liblock_exec(). */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long hits, misses, slots[16];

long lookup(int k)
{
	long cost = 0;

	pthread_mutex_lock(&lock);
	if (slots[k & 15]) {
		long v = slots[k & 15]++;

		hits++;
		pthread_mutex_unlock(&lock);
		cost = v * 2;
	} else if (k < 0) {
		pthread_mutex_unlock(&lock);
		return -1;
	} else {
		slots[k & 15] = 1;
		misses++;
		pthread_mutex_unlock(&lock);
	}
	return cost;
}
