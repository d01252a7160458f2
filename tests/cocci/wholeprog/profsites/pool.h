/* A pool whose locks live in structures on the heap: rcl-prof names each
 * by the line that initialises it (init.c), and the units that take them
 * (work.c) never say where that is. */
#include <pthread.h>

#define NSLOTS 4

struct slot {
	pthread_mutex_t lock;
	long hits;
};

struct pool {
	pthread_mutex_t lock;
	struct slot slots[NSLOTS];
	long total;
	pthread_mutex_t stats_lock;
	long calls;
};

extern struct pool *the_pool;

void pool_init(void);
void pool_hit(int i);
long pool_sum(void);
long pool_calls(void);
