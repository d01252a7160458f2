/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A bounded queue in the style of compression tools: every pthread call
   goes through a macro that aborts when the call fails, the condition
   calls included.  pthread_cond_wait(), _signal() and _broadcast() give
   0 in a correct program, so once that check is seen to do nothing else
   they are the calls, renamed for the converted lock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define xlock(m)	((void)(pthread_mutex_lock(m) && (abort(), 0)))
#define xunlock(m)	((void)(pthread_mutex_unlock(m) && (abort(), 0)))
#define xwait(c, m)	((void)(pthread_cond_wait((c), (m)) && (abort(), 0)))
#define xsignal(c)	((void)(pthread_cond_signal(c) && (abort(), 0)))
#define xbroadcast(c)	do { if (pthread_cond_broadcast(c) != 0) abort(); } while (0)

#define CAP 8
#define PER_PRODUCER 20000

static pthread_mutex_t q_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_nonfull = PTHREAD_COND_INITIALIZER;
static int q_buf[CAP], q_head, q_len, q_producers = 2;
static long consumed_sum, consumed_n;

static void q_put(int v)
{
	xlock(&q_mu);
	while (q_len == CAP)
		xwait(&q_nonfull, &q_mu);
	q_buf[(q_head + q_len++) % CAP] = v;
	xsignal(&q_nonempty);
	xunlock(&q_mu);
}

static void q_done(void)
{
	xlock(&q_mu);
	q_producers--;
	xbroadcast(&q_nonempty);
	xunlock(&q_mu);
}

static int q_get(int *v)
{
	int ok = 0;

	xlock(&q_mu);
	while (q_len == 0 && q_producers > 0)
		xwait(&q_nonempty, &q_mu);
	if (q_len > 0) {
		*v = q_buf[q_head];
		q_head = (q_head + 1) % CAP;
		q_len--;
		ok = 1;
		xsignal(&q_nonfull);
	}
	xunlock(&q_mu);
	return ok;
}

static void *producer(void *arg)
{
	int base = (int)(long)arg, i;

	for (i = 0; i < PER_PRODUCER; i++)
		q_put(base + i % 100);
	q_done();
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0, n = 0;
	int v;

	(void)arg;
	while (q_get(&v)) {
		sum += v;
		n++;
	}
	xlock(&q_mu);
	consumed_sum += sum;
	consumed_n += n;
	xunlock(&q_mu);
	return NULL;
}

int main(void)
{
	pthread_t p[2], c[2];
	long i;

	for (i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	for (i = 0; i < 2; i++)
		pthread_create(&p[i], NULL, producer, (void *)(i * 1000));
	for (i = 0; i < 2; i++)
		pthread_join(p[i], NULL);
	for (i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("consumed %ld values, sum %ld\n", consumed_n, consumed_sum);
	return 0;
}
