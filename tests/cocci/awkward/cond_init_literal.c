/* SPDX-License-Identifier: MIT */
/* expect: refused the converted declaration of a condition it waits on */
/* A condition initialised with glibc's expansion of
 * PTHREAD_COND_INITIALIZER written out, through a function-like macro:
 * the tool does not read it as pthread's initialiser, and the converted
 * declaration gets "braces around scalar initializer".  That new warning
 * was blamed on nothing, so nothing at all was written; it now keeps the
 * mutex the condition waits with POSIX, with the reason. */
#include <pthread.h>
#include <stdio.h>

#define Q_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define Q_COND_INITIALIZER PTHREAD_COND_INITIALIZER
#define Q_COND_STATIC() { { {0}, {0}, {0, 0}, {0, 0}, 0, 0, {0, 0} } }

#define SLOTS 8

static pthread_mutex_t q_lock = Q_MUTEX_INITIALIZER;
static pthread_cond_t q_ready = Q_COND_INITIALIZER, q_room = Q_COND_STATIC();
static int q_items[SLOTS];
static int q_head, q_count;

static void put(int v)
{
	pthread_mutex_lock(&q_lock);
	while (q_count == SLOTS)
		pthread_cond_wait(&q_room, &q_lock);
	q_items[(q_head + q_count) % SLOTS] = v;
	q_count++;
	pthread_cond_signal(&q_ready);
	pthread_mutex_unlock(&q_lock);
}

static int get(void)
{
	int v;

	pthread_mutex_lock(&q_lock);
	while (q_count == 0)
		pthread_cond_wait(&q_ready, &q_lock);
	v = q_items[q_head];
	q_head = (q_head + 1) % SLOTS;
	q_count--;
	pthread_cond_signal(&q_room);
	pthread_mutex_unlock(&q_lock);
	return v;
}

static void *producer(void *arg)
{
	for (int i = 1; i <= 20000; i++)
		put(i % 7);
	(void)arg;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long sum = 0;

	pthread_create(&t, NULL, producer, NULL);
	for (int i = 0; i < 20000; i++)
		sum += get();
	pthread_join(t, NULL);
	printf("sum %ld\n", sum);
	return 0;
}
