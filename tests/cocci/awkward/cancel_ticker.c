/* SPDX-License-Identifier: MIT */
/* A program that cancels one thread, its ticker, at the end: the
   ticker's section prints (a cancellation point) under its lock, and is
   held, cancellable where it was.  The workers, never cancelled, wait on
   a condition and print under the queue's lock: their sections are
   delegated.  Before, any pthread_cancel() kept every condition POSIX,
   and with it the queue's lock. */
/* expect: held may be a cancellation point, and the program cancels threads */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NT 3
#define ITEMS 2000

struct ticker {
	pthread_t tid;
	pthread_mutex_t lock;
	long ticks;
};

static struct ticker tick = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cv = PTHREAD_COND_INITIALIZER;
static int queued, closed;
static long done;

static void *ticker_main(void *arg)
{
	struct ticker *t = arg;

	for (;;) {
		pthread_mutex_lock(&t->lock);
		if (t->ticks++ < 0)
			printf("tick %ld\n", t->ticks);
		pthread_mutex_unlock(&t->lock);
		usleep(1000);
	}
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&q_lock);
		while (queued == 0 && !closed)
			pthread_cond_wait(&q_cv, &q_lock);
		if (queued == 0) {
			pthread_mutex_unlock(&q_lock);
			return NULL;
		}
		queued--;
		if (++done == ITEMS)
			printf("all %d taken\n", ITEMS);
		pthread_mutex_unlock(&q_lock);
	}
}

int main(void)
{
	pthread_t w[NT];

	pthread_create(&tick.tid, NULL, ticker_main, &tick);
	for (int i = 0; i < NT; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&q_lock);
		queued++;
		pthread_cond_signal(&q_cv);
		pthread_mutex_unlock(&q_lock);
	}
	pthread_mutex_lock(&q_lock);
	closed = 1;
	pthread_cond_broadcast(&q_cv);
	pthread_mutex_unlock(&q_lock);
	for (int i = 0; i < NT; i++)
		pthread_join(w[i], NULL);
	pthread_cancel(tick.tid);
	pthread_join(tick.tid, NULL);
	printf("%ld %d\n", done, tick.ticks > 0);
	return 0;
}
