#include <stdio.h>
#include <stdlib.h>
#include "counter.h"
#define RING_STATIC
#include "ring.c"

struct counter hits = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
static struct ring events;

static void *worker(void *arg)
{
	(void)arg;
	char buf[32];
	long sum = 0;

	work();
	for (int i = 0; i < 5000; i++) {
		ring_push(&events, i % 7);
		sum += ring_describe(&events, 1, i, buf, sizeof buf);
		sum += ring_describe(&events, 0, 0, buf, sizeof buf);
		sum += ring_describe(&events, 1, -1, buf, sizeof buf);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t th[3];
	long sum = 0, got = 0;
	void *ret;

	ring_init(&events);
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			abort();
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], &ret);
		got += (long)ret;
	}
	for (int i = 0; i < 16; i++)
		sum += events.slots[i];
	printf("%ld %ld %d %ld %d %ld %ld\n", counter_get(&hits), hits.max,
	       events.head, sum, idle_ticks(), got, events.described);
	return 0;
}
