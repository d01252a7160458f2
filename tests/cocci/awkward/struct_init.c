/* SPDX-License-Identifier: MIT */
/* `{ PTHREAD_MUTEX_INITIALIZER, 0, 0 }`: a structure initialiser. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct stats {
	pthread_mutex_t mu;
	long n, sum;
};

static struct stats st = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

static void record(long v)
{
	pthread_mutex_lock(&st.mu);
	st.n++;
	st.sum += v;
	pthread_mutex_unlock(&st.mu);
}

static void *worker(void *arg)
{
	long i;

	for (i = 0; i < IT; i++)
		record((long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("n %ld sum %ld\n", st.n, st.sum);
	return st.n == NT * IT && st.sum == 6 * IT ? 0 : 1;
}
