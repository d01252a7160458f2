/* SPDX-License-Identifier: MIT */
/* sizeof of a local array of the caller, inside the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 300

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char motd[64] = "a message of the day longer than twenty";

static void *worker(void *arg)
{
	char copy[20];
	long bad = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		memset(copy, 0, sizeof copy);
		memcpy(copy, motd, sizeof(copy) - 1);
		pthread_mutex_unlock(&m);
		if (strlen(copy) != sizeof copy - 1)
			bad++;
	}
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("bad %ld\n", bad);
	return bad == 0 ? 0 : 1;
}
