/* SPDX-License-Identifier: MIT */
/* Two mutexes in one multi-declarator static declaration. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t a_lock = PTHREAD_MUTEX_INITIALIZER,
		       b_lock = PTHREAD_MUTEX_INITIALIZER;
static long a, b;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&a_lock);
		a += 2;
		pthread_mutex_unlock(&a_lock);
		pthread_mutex_lock(&b_lock);
		b += 3;
		pthread_mutex_unlock(&b_lock);
	}
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
	printf("a %ld b %ld\n", a, b);
	return a == 2 * NT * IT && b == 3 * NT * IT ? 0 : 1;
}
