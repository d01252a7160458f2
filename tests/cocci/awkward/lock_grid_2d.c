/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Locks in a two-dimensional array, one per grid cell
   (pthread_mutex_lock(&cell_lock[r][c])), and a lock array indexed
   through another array (stripe[slot_of[i]]).  Before, a lock
   expression with more than one subscript could not be named and its
   lock stayed POSIX. */
#include <pthread.h>
#include <stdio.h>

#define R 4
#define C 4
#define NWORKERS 3

static pthread_mutex_t cell_lock[R][C];
static long cell[R][C];
static pthread_mutex_t stripe[4] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static const int slot_of[8] = { 3, 1, 0, 2, 2, 0, 1, 3 };
static long striped[4];

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 2000; i++) {
		int r = (i + id) % R, c = (i * 3) % C;

		pthread_mutex_lock(&cell_lock[r][c]);
		cell[r][c] += id + 1;
		pthread_mutex_unlock(&cell_lock[r][c]);
		pthread_mutex_lock(&stripe[slot_of[i % 8]]);
		striped[slot_of[i % 8]] += id;
		pthread_mutex_unlock(&stripe[slot_of[i % 8]]);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	long s = 0;

	for (int r = 0; r < R; r++)
		for (int c = 0; c < C; c++)
			pthread_mutex_init(&cell_lock[r][c], NULL);
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int r = 0; r < R; r++)
		for (int c = 0; c < C; c++)
			s += cell[r][c] * (r + 1) * (c + 1);
	printf("s %ld striped %ld %ld %ld %ld\n", s, striped[0], striped[1],
	       striped[2], striped[3]);
	return 0;
}
