/* Golden: two structures declare a field named 'lock', and one section
 * takes it through the result of a call through a function pointer,
 * whose structure the tool does not infer: every candidate (queue.lock,
 * pool.lock) stays POSIX, with the reason. */
#include <pthread.h>

struct queue {
	pthread_mutex_t lock;
	int len;
};

struct pool {
	pthread_mutex_t lock;
	int free;
};

extern struct queue *(*current_queue)(void);

void queue_push(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->len++;
	pthread_mutex_unlock(&q->lock);
}

void pool_take(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->free--;
	pthread_mutex_unlock(&p->lock);
}

void current_push(void)
{
	pthread_mutex_lock(&current_queue()->lock);
	current_queue()->len++;
	pthread_mutex_unlock(&current_queue()->lock);
}
