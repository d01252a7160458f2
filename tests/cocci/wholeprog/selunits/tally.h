/* SPDX-License-Identifier: MIT */
#ifndef TALLY_H
#define TALLY_H
#include <pthread.h>

struct tally {
	pthread_mutex_t mu;
	long hits;
	long misses;
};

typedef struct {
	pthread_mutex_t guard;
	unsigned long last;
} stamp_t;

extern struct tally totals;
extern stamp_t clock_stamp;

void tally_hit(struct tally *t, int hit);
unsigned long stamp_next(stamp_t *s);
int table_value(int i);
#endif
