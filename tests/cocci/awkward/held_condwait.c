/* SPDX-License-Identifier: MIT */
/* A bounded queue: consumers wait for work in a section that also counts
   what each thread took in a thread-local variable (held: it runs in the
   consumer's thread, its wait on the lock word); producers wait for room
   in an ordinary section of the same lock (delegated, their wait too). */
/* expect: held thread-local */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NPROD 3
#define NCONS 5
#define PER_PRODUCER 2000
#define QSIZE 8

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static long queue[QSIZE];
static unsigned head, tail;
static long consumed, consumed_sum, produced_sum, by_thread_sum;
static __thread long taken_here;

static void put(long v)
{
	pthread_mutex_lock(&q_lock);
	while (tail - head == QSIZE)
		pthread_cond_wait(&not_full, &q_lock);
	queue[tail++ % QSIZE] = v;
	if (v >= 0)
		produced_sum += v;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&q_lock);
}

static long get(void)
{
	long v;

	pthread_mutex_lock(&q_lock);
	while (tail == head)
		pthread_cond_wait(&not_empty, &q_lock);
	v = queue[head++ % QSIZE];
	taken_here++;
	if (v >= 0) {
		consumed++;
		consumed_sum += v;
	}
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&q_lock);
	return v;
}

static void *producer(void *arg)
{
	long id = (long)arg, i;

	for (i = 0; i < PER_PRODUCER; i++)
		put(id * 10000 + i);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (get() >= 0)
		;
	pthread_mutex_lock(&q_lock);
	by_thread_sum += taken_here;
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
		put(-1); /* one stop mark per consumer */
	for (i = 0; i < NCONS; i++)
		pthread_join(c[i], NULL);
	printf("consumed %ld taken %ld\n", consumed, by_thread_sum);
	return consumed == NPROD * PER_PRODUCER &&
			       consumed_sum == produced_sum &&
			       by_thread_sum == consumed + NCONS ?
		       0 :
		       1;
}
