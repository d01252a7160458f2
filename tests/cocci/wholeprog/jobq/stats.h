#ifndef STATS_H
#define STATS_H
#include <pthread.h>

extern pthread_mutex_t stats_lock;
extern long stats_done, stats_sum;

void stats_add(long v);
#endif
