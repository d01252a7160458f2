/* SPDX-License-Identifier: MIT */
/* A loop whose section is left early with continue and break. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static long evens, odds, stops;

static void scan(long base)
{
	long i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&q_lock);
		if ((base + i) % 2) {
			odds++;
			pthread_mutex_unlock(&q_lock);
			continue;
		}
		if (i == IT - 2) {
			stops++;
			pthread_mutex_unlock(&q_lock);
			break;
		}
		evens++;
		pthread_mutex_unlock(&q_lock);
	}
}

static void *worker(void *arg)
{
	scan((long)arg);
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
	printf("evens %ld odds %ld stops %ld\n", evens, odds, stops);
	return evens + odds + stops == 2 * (IT - 1) + 2 * IT && stops == 2 ? 0 : 1;
}
