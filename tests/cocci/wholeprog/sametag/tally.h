/* A structure without a tag that two units lock. */
#ifndef TALLY_H
#define TALLY_H
#include <pthread.h>

typedef struct {
	pthread_mutex_t lock;
	long events;
} tally_t;

extern tally_t tally;
#endif
