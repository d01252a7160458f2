/* Golden: an init macro that supplies the attribute argument itself is
 * replaced by the whole liblock_init() call; a renamed cond macro keeps
 * its arguments. */
#include <pthread.h>

#define LOCK_INIT(m) pthread_mutex_init((m), NULL)
#define COND_SIGNAL(c) pthread_cond_signal(c)

struct box {
	pthread_mutex_t lock;
	pthread_cond_t ready;
	int full;
};

int box_init(struct box *b)
{
	b->full = 0;
	pthread_cond_init(&b->ready, NULL);
	return LOCK_INIT(&b->lock);
}

void box_fill(struct box *b)
{
	pthread_mutex_lock(&b->lock);
	b->full = 1;
	COND_SIGNAL(&b->ready);
	pthread_mutex_unlock(&b->lock);
}

void box_wait(struct box *b)
{
	pthread_mutex_lock(&b->lock);
	while (!b->full)
		pthread_cond_wait(&b->ready, &b->lock);
	pthread_mutex_unlock(&b->lock);
}
