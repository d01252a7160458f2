/* SPDX-License-Identifier: MIT */
/* A work queue whose consumer pops under the queue lock and then calls
   queue_done(), which updates the statistics and releases the lock before
   the job runs: the unlock is in a callee (held).  When the queue is
   empty, the consumer looks at the backlog twice, letting the producers
   in between through a function that unlocks and locks again (held too).
   Producers push with an ordinary section of the same lock (delegated). */
/* expect: held unlock in another function */
/* expect: held let_producers_in() takes or releases q_lock */
/* expect: transformed */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define NPROD 4
#define NCONS 4
#define PER_PRODUCER 3000
#define QSIZE 64

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static long queue[QSIZE];
static unsigned head, tail;
static long popped, pushed_sum, done_sum;
static int producers_left = NPROD;

static void queue_done(int empty)
{
	if (!empty)
		popped++;
	pthread_mutex_unlock(&q_lock);
}

static int push(long v)
{
	int ok = 0;

	pthread_mutex_lock(&q_lock);
	if (tail - head < QSIZE) {
		queue[tail++ % QSIZE] = v;
		pushed_sum += v;
		ok = 1;
	}
	pthread_mutex_unlock(&q_lock);
	return ok;
}

static void producer_exit(void)
{
	pthread_mutex_lock(&q_lock);
	producers_left--;
	pthread_mutex_unlock(&q_lock);
}

static void let_producers_in(void)
{
	pthread_mutex_unlock(&q_lock);
	sched_yield();
	pthread_mutex_lock(&q_lock);
}

/* How much the queue holds, twice, letting producers in between. */
static unsigned backlog_twice(void)
{
	unsigned n;

	pthread_mutex_lock(&q_lock);
	n = tail - head;
	let_producers_in();
	n += tail - head;
	pthread_mutex_unlock(&q_lock);
	return n;
}

/* 1: a job was run, 0: queue empty, -1: empty and no producer left */
static int run_one(long *sum)
{
	long job = 0;
	int empty, left;

	pthread_mutex_lock(&q_lock);
	empty = head == tail;
	left = producers_left;
	if (!empty)
		job = queue[head++ % QSIZE];
	queue_done(empty);
	if (empty)
		return left ? 0 : -1;
	*sum += job; /* the job runs outside the lock */
	return 1;
}

static void *producer(void *arg)
{
	long id = (long)arg, i;

	for (i = 1; i <= PER_PRODUCER; i++)
		while (!push(id * 100000 + i))
			sched_yield();
	producer_exit();
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;
	int r;

	(void)arg;
	while ((r = run_one(&sum)) >= 0)
		if (r == 0 && backlog_twice() > 2 * QSIZE)
			return NULL; /* more than the queue can hold */
	pthread_mutex_lock(&q_lock);
	done_sum += sum;
	pthread_mutex_unlock(&q_lock);
	return NULL;
}

int main(void)
{
	pthread_t p[NPROD], c[NCONS];
	long i;

	for (i = 0; i < NCONS; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	for (i = 0; i < NPROD; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (i = 0; i < NPROD; i++)
		pthread_join(p[i], NULL);
	for (i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	printf("popped %ld sum %ld\n", popped, done_sum);
	return popped == NPROD * PER_PRODUCER && done_sum == pushed_sum ? 0 : 1;
}
