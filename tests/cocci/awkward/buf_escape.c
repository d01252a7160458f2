/* SPDX-License-Identifier: MIT */
/* A buffer declared inside the section whose address is used after. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 300

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long gen;

static void *worker(void *arg)
{
	const char *name;
	long bad = 0;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		char buf[32];
		gen++;
		snprintf(buf, sizeof buf, "item-%ld", (long)arg);
		name = buf;
		pthread_mutex_unlock(&m);
		if (strncmp(name, "item-", 5) != 0 || name[5] != '0' + (long)arg)
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
	printf("gen %ld bad %ld\n", gen, bad);
	return gen == NT * IT && bad == 0 ? 0 : 1;
}
