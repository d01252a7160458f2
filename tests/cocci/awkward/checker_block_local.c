/*
 * One checking macro for every pthread call, as many programs write it:
 * the call's result goes into a local of the macro's own do/while block,
 * which reports and aborts when it is not 0.  Every use of the macro
 * declares its own `rc_`; none is visible after its statement.  The
 * sections lock, wait, signal and unlock through it, and one leaves its
 * loop early.  Each `rc_` is the compiler's own declaration, used in its
 * expansion only: none is a variable the section shares with its
 * caller, and the sections are delegated.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT(call)                                                      \
	do {                                                          \
		int rc_ = (call);                                     \
		if (rc_ != 0) {                                       \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__,  \
				__LINE__, #call, strerror(rc_));      \
			abort();                                      \
		}                                                     \
	} while (0)

#define SLOTS 8

static pthread_mutex_t ring_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long ring[SLOTS];
static int fill, closed;
static unsigned rd, wr;

static void put(long v)
{
	PT(pthread_mutex_lock(&ring_mu));
	while (fill == SLOTS)
		PT(pthread_cond_wait(&not_full, &ring_mu));
	ring[wr++ % SLOTS] = v;
	fill++;
	PT(pthread_cond_signal(&not_empty));
	PT(pthread_mutex_unlock(&ring_mu));
}

static void *drain(void *arg)
{
	long *sum = arg;

	for (;;) {
		long v;

		PT(pthread_mutex_lock(&ring_mu));
		while (fill == 0 && !closed)
			PT(pthread_cond_wait(&not_empty, &ring_mu));
		if (fill == 0) {
			PT(pthread_mutex_unlock(&ring_mu));
			break;
		}
		v = ring[rd++ % SLOTS];
		fill--;
		PT(pthread_cond_signal(&not_full));
		PT(pthread_mutex_unlock(&ring_mu));
		*sum += v;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long sums[2] = {0, 0};

	for (int i = 0; i < 2; i++)
		PT(pthread_create(&th[i], NULL, drain, &sums[i]));
	for (long v = 1; v <= 20000; v++)
		put(v);
	PT(pthread_mutex_lock(&ring_mu));
	closed = 1;
	PT(pthread_cond_broadcast(&not_empty));
	PT(pthread_mutex_unlock(&ring_mu));
	for (int i = 0; i < 2; i++)
		PT(pthread_join(th[i], NULL));
	printf("sum %ld\n", sums[0] + sums[1]);
	return 0;
}
