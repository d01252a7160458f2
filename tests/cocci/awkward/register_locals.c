/* SPDX-License-Identifier: MIT */
/* Code from the days when `register` was advice: a parameter and locals
   declared register that the sections write.  The section's function
   reaches each by address, which C forbids for a register variable, so
   the keyword goes from those declarations (the compiler is free to
   ignore it anyway) and every section is delegated; a register local
   the section only reads keeps it. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 5000

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static long tally[4];

static long sum_run(int n)
{
	register long seen = 0;

	while (n-- > 0) {
		pthread_mutex_lock(&tally_lock);
		seen += tally[0]++;
		pthread_mutex_unlock(&tally_lock);
	}
	return seen;
}

static long step_run(register long step, int n)
{
	while (n-- > 0) {
		pthread_mutex_lock(&tally_lock);
		step = step * 3 % 7 + 1;
		tally[1] += step;
		pthread_mutex_unlock(&tally_lock);
	}
	return step;
}

static long pair_run(int n)
{
	register int a = 1, b = 0;
	register long r = n;

	while (n-- > 0) {
		pthread_mutex_lock(&tally_lock);
		b += (int)(tally[2]++ & 1);
		pthread_mutex_unlock(&tally_lock);
		pthread_mutex_lock(&tally_lock);
		tally[3] += r;
		pthread_mutex_unlock(&tally_lock);
	}
	return a + b;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	sum_run(IT);
	step_run(id + 1, IT);
	pair_run(IT);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("%ld %d %ld %ld\n", tally[0], tally[1] > 0, tally[2],
	       tally[3]);
	printf("%ld %ld %ld\n", sum_run(1), step_run(2, 1), pair_run(1));
	return 0;
}
