/* SPDX-License-Identifier: MIT */
/* A side effect in the unlock's lock expression: &locks[i++]. */
/* expect: held side effect */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define NL 4

static pthread_mutex_t locks[NL] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static long cnt[NL];

static void *worker(void *arg)
{
	int i = 0, r;

	(void)arg;
	for (r = 0; r < 200; r++) {
		i = 0;
		while (i < NL) {
			pthread_mutex_lock(&locks[i]);
			cnt[i]++;
			pthread_mutex_unlock(&locks[i++]);
		}
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
	printf("%ld %ld %ld %ld\n", cnt[0], cnt[1], cnt[2], cnt[3]);
	return cnt[0] == NT * 200 && cnt[3] == NT * 200 ? 0 : 1;
}
