/* SPDX-License-Identifier: MIT */
/* A structure local copied out of the shared state in the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

struct snap {
	long reads, writes;
	char tag[8];
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct snap cur = { 0, 0, "snap" };

static void *worker(void *arg)
{
	struct snap s = { 0, 0, "" };
	long bad = 0;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		if ((long)arg & 1)
			cur.writes++;
		else
			cur.reads++;
		s = cur;
		pthread_mutex_unlock(&m);
		if (s.tag[0] != 's' || s.reads + s.writes < i + 1)
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
	printf("reads %ld writes %ld bad %ld\n", cur.reads, cur.writes, bad);
	return cur.reads == NT * IT / 2 && bad == 0 ? 0 : 1;
}
