/* SPDX-License-Identifier: MIT */
/* cancel_ticker.c's program, but the ticker is started by a helper
   that returns its id, which main() stores: the variable the cancel
   names is assigned, not filled by pthread_create(), so which threads
   it may hold cannot be told, and the workers' queue stays POSIX with
   the ticker's lock. */
/* expect: refused lock q_lock stays POSIX */
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

static pthread_t spawn_ticker(struct ticker *t)
{
	pthread_t id;

	pthread_create(&id, NULL, ticker_main, t);
	return id;
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

	tick.tid = spawn_ticker(&tick);
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
