#include <pthread.h>
#include "queue.h"
#include "util.h"

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static long ring[QUEUE_CAP];
static int head, count;
static unsigned long digest;

int q_push(long v)
{
	pthread_mutex_lock(&q_lock);
	if (count == QUEUE_CAP) {
		pthread_mutex_unlock(&q_lock);
		return -1;
	}
	ring[(head + count) % QUEUE_CAP] = v;
	count++;
	pthread_mutex_unlock(&q_lock);
	return 0;
}

int q_pop(long *out)
{
	int ok = 0;

	pthread_mutex_lock(&q_lock);
	if (count > 0) {
		*out = ring[head];
		head = (head + 1) % QUEUE_CAP;
		count--;
		digest += mix((unsigned long)*out);
		ok = 1;
	}
	pthread_mutex_unlock(&q_lock);
	return ok;
}

unsigned long q_digest(void)
{
	unsigned long d;

	pthread_mutex_lock(&q_lock);
	d = digest;
	pthread_mutex_unlock(&q_lock);
	return d;
}
