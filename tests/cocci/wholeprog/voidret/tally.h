#include <pthread.h>
struct tally {
	pthread_mutex_t lock;	/* first: a pointer to the tally is one to it */
	long n;
};
long tally_run(int threads);
