/* SPDX-License-Identifier: MIT */
/* Two teams of threads that take turns: each thread is handed a
   structure of pointers to its team's lock, condition and turn counter
   (elements of two arrays), filled by a compound literal by position
   for one team and by assignments for the other.  The condition
   pointer is given the conditions' addresses, so they change type
   together (before, the member became a liblock_cond_t pointer given a
   pthread_cond_t's address, and nothing was written for the file). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define ROUNDS 1500

struct relay {
	pthread_mutex_t *lock;
	pthread_cond_t *turn_cv;
	int *turn;
	int id;
	long *log;
};

static pthread_mutex_t team_lock[2];
static pthread_cond_t team_cv[2];

static void *runner(void *p)
{
	struct relay *r = p;

	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(r->lock);
		while (*r->turn != r->id)
			pthread_cond_wait(r->turn_cv, r->lock);
		*r->log = *r->log * 3 + r->id;
		*r->log %= 1000003;
		*r->turn = (r->id + 1) % NT;
		pthread_cond_broadcast(r->turn_cv);
		pthread_mutex_unlock(r->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2 * NT];
	struct relay red[NT], blue[NT];
	int red_turn = 0, blue_turn = 0;
	long red_log = 1, blue_log = 2;

	for (int i = 0; i < 2; i++) {
		pthread_mutex_init(&team_lock[i], NULL);
		pthread_cond_init(&team_cv[i], NULL);
	}
	for (int i = 0; i < NT; i++) {
		red[i] = (struct relay){ &team_lock[0], &team_cv[0], &red_turn,
					 i, &red_log };
		blue[i].lock = &team_lock[1];
		blue[i].turn_cv = &team_cv[1];
		blue[i].turn = &blue_turn;
		blue[i].id = i;
		blue[i].log = &blue_log;
	}
	for (int i = 0; i < NT; i++) {
		pthread_create(&t[i], NULL, runner, &red[i]);
		pthread_create(&t[NT + i], NULL, runner, &blue[i]);
	}
	for (int i = 0; i < 2 * NT; i++)
		pthread_join(t[i], NULL);
	printf("%d %ld %d %ld\n", red_turn, red_log, blue_turn, blue_log);
	for (int i = 0; i < 2; i++) {
		pthread_cond_destroy(&team_cv[i]);
		pthread_mutex_destroy(&team_lock[i]);
	}
	return 0;
}
