/* Golden: --locks PROFILE.json (rcl-prof's format): only the lock the
 * profile recommends is converted; the other stays a pthread mutex. */
#include <pthread.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cold;
static long hits, misses;

void hit(void)
{
	pthread_mutex_lock(&hot);
	hits++;
	pthread_mutex_unlock(&hot);
}

void miss(void)
{
	pthread_mutex_lock(&cold);
	misses++;
	pthread_mutex_unlock(&cold);
}

int setup(void)
{
	return pthread_mutex_init(&cold, NULL);
}
