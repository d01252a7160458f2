/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* liburcu's urcu-wait.h (Debian liburcu 0.13.2): a function-like macro
 * initialises a structure whose member structure holds the mutex, by
 * nested designators (`{ .stack = { .head = ..., .lock =
 * PTHREAD_MUTEX_INITIALIZER, }, }`), used through another macro that
 * declares the variable.  The member became liblock_lock_t, its
 * initialiser in the macro stayed pthread's: "braces around scalar
 * initializer", blamed on nothing, and nothing at all was written. */
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
	{						\
		.stack = {				\
			.head = NULL,			\
			.lock = PTHREAD_MUTEX_INITIALIZER, \
		},					\
	}
#define DEFINE_WAIT_QUEUE(name)				\
	struct wait_queue name = WAIT_QUEUE_HEAD_INIT(name)

static DEFINE_WAIT_QUEUE(waiters);
static long pushed;

static void *worker(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&waiters.stack.lock);
		pushed += (long)arg;
		pthread_mutex_unlock(&waiters.stack.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("pushed %ld\n", pushed);
	return 0;
}
