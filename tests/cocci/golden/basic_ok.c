/* Golden: one global mutex, a section with an input and an output. */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

int next_id(int step)
{
	int id;

	pthread_mutex_lock(&lock);
	counter += step;
	id = counter;
	pthread_mutex_unlock(&lock);
	return id;
}

void reset(void)
{
	pthread_mutex_lock(&lock);
	counter = 0;
	pthread_mutex_unlock(&lock);
}
