/* SPDX-License-Identifier: MIT */
/* A bounded queue with two condition variables. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NP 2
#define IT 300
#define QN 8

static pthread_mutex_t qm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int q[QN], head, tail, count;

static void put(int v)
{
	pthread_mutex_lock(&qm);
	while (count == QN)
		pthread_cond_wait(&not_full, &qm);
	q[tail] = v;
	tail = (tail + 1) % QN;
	count++;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&qm);
}

static int get(void)
{
	int v;

	pthread_mutex_lock(&qm);
	while (count == 0)
		pthread_cond_wait(&not_empty, &qm);
	v = q[head];
	head = (head + 1) % QN;
	count--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&qm);
	return v;
}

static void *producer(void *arg)
{
	int i;

	for (i = 1; i <= IT; i++)
		put(i + (int)(long)arg * 0);
	return NULL;
}

int main(void)
{
	pthread_t t[NP];
	long i, sum = 0;

	for (i = 0; i < NP; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	for (i = 0; i < NP * IT; i++)
		sum += get();
	for (i = 0; i < NP; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld\n", sum);
	return sum == (long)NP * IT * (IT + 1) / 2 ? 0 : 1;
}
