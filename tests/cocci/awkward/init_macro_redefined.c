/* SPDX-License-Identifier: MIT */
/* expect: refused gets a new compiler diagnostic (warning: excess elements in scalar initializer) */
/* A wrapper of an initialiser macro defined twice (#undef, then
 * another body): the tool reads neither definition as the mutex's
 * site, and the compiler's warning on the converted initialiser is
 * blamed on the lock the compiler says that line initialises, which
 * stays POSIX; the other locks of the run still move. */
#include <pthread.h>
#include <stdio.h>

struct stack {
	void *head;
	pthread_mutex_t lock;
};

struct wait_queue {
	struct stack stack;
};

#define WAIT_QUEUE_HEAD_INIT(name)			\
	{ .stack = { .head = NULL, .lock = PTHREAD_MUTEX_INITIALIZER, }, }
#define DEFINE_WAIT_QUEUE(name)				\
	struct wait_queue name = WAIT_QUEUE_HEAD_INIT(name)

static DEFINE_WAIT_QUEUE(waiters);
#undef DEFINE_WAIT_QUEUE
#define DEFINE_WAIT_QUEUE(name)	struct wait_queue name = WAIT_QUEUE_HEAD_INIT(x)
static DEFINE_WAIT_QUEUE(others);
static long pushed, counted;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&waiters.stack.lock);
		pushed += (long)arg;
		pthread_mutex_unlock(&waiters.stack.lock);
	}
	pthread_mutex_lock(&others.stack.lock);
	pthread_mutex_unlock(&others.stack.lock);
	pthread_mutex_lock(&count_lock);
	counted++;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("pushed %ld counted %ld\n", pushed, counted);
	return 0;
}
