/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* BSD style(9) puts a return's value in parentheses, the unlock's result
   included: return (pthread_mutex_unlock(&q->mtx)); both at the end of a
   section and on an early exit from it. */
#include <sys/types.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define	QLEN	16
#define	NTHR	3
#define	NITER	20000

struct ringq {
	pthread_mutex_t	mtx;
	int		slots[QLEN];
	u_int		head, tail;
	u_long		full, puts, gets;
};

static struct ringq rq = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0, 0, 0, 0, 0 };

static int
ringq_put(struct ringq *q, int v)
{

	pthread_mutex_lock(&q->mtx);
	if (v < 0 || q->tail - q->head == QLEN) {
		q->full++;
		return (pthread_mutex_unlock(&q->mtx));
	}
	q->slots[q->tail++ % QLEN] = v;
	q->puts++;
	return (pthread_mutex_unlock(&q->mtx));
}

static int
ringq_get(struct ringq *q, int *vp)
{
	int error;

	pthread_mutex_lock(&q->mtx);
	if (q->head == q->tail)
		error = EAGAIN;
	else {
		*vp = q->slots[q->head++ % QLEN];
		q->gets++;
		error = 0;
	}
	pthread_mutex_unlock(&q->mtx);
	return (error);
}

static void *
worker(void *arg)
{
	long id = (long)arg;
	long sum = 0;
	int i, v;

	for (i = 0; i < NITER; i++) {
		if (i % 10 == 9 && ringq_put(&rq, -i) != 0)
			return ((void *)-1);
		if (ringq_put(&rq, (int)(id * 100 + i % 7)) != 0)
			return ((void *)-1);
		if (ringq_get(&rq, &v) == 0)
			sum += v;
	}
	return ((void *)sum);
}

int
main(void)
{
	pthread_t t[NTHR];
	void *r;
	long i, sum = 0;
	int v;

	for (i = 0; i < NTHR; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHR; i++) {
		pthread_join(t[i], &r);
		if (r == (void *)-1)
			return (1);
		sum += (long)r;
	}
	while (ringq_get(&rq, &v) == 0)
		sum += v;
	printf("puts %lu full %lu gets %lu values %ld\n", rq.puts, rq.full,
	    rq.gets, sum);
	return (0);
}
