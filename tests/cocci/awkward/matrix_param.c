/* SPDX-License-Identifier: MIT */
/* A two-dimensional array parameter (int grid[][4]) used in the section. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void add_grid(int grid[][4], int rows)
{
	int r, c;

	pthread_mutex_lock(&m);
	for (r = 0; r < rows; r++)
		for (c = 0; c < 4; c++)
			total += grid[r][c];
	grid[0][0]++;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int g[2][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } };
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		add_grid(g, 2);
	return (void *)(long)g[0][0];
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
		bad += (long)r != 1 + IT;
	}
	printf("total %ld bad %ld\n", total, bad);
	return bad == 0 ? 0 : 1;
}
