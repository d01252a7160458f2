/* SPDX-License-Identifier: MIT */
/* A local carried from one run of a section to the next: the section, in
   a loop, reads and updates `streak`, which nothing after the loop reads.
   Its value must survive between the runs, as the caller's local does. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 1000

static pthread_mutex_t score_lock = PTHREAD_MUTEX_INITIALIZER;
static long board;

static void *player(void *arg)
{
	long streak = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&score_lock);
		streak++;
		board += streak;
		pthread_mutex_unlock(&score_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, player, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("board %ld\n", board);
	return board == (long)NT * IT * (IT + 1) / 2 ? 0 : 1;
}
