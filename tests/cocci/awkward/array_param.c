/* SPDX-License-Identifier: MIT */
/* An array-typed parameter (char out[16]) used inside the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 300

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long serial;

static void next_name(char out[16], const int tag[2])
{
	pthread_mutex_lock(&m);
	serial++;
	snprintf(out, 16, "n%d-%ld", tag[0] + tag[1], serial % 10);
	out[15] = 0;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	char name[16];
	int tag[2] = { (int)(long)arg, 1 };
	long bad = 0;
	int i;

	for (i = 0; i < IT; i++) {
		next_name(name, tag);
		if (name[0] != 'n' || name[1] != '1' + tag[0])
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
	printf("serial %ld bad %ld\n", serial, bad);
	return serial == NT * IT && bad == 0 ? 0 : 1;
}
