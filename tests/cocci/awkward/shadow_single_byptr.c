/* SPDX-License-Identifier: MIT */
/* The one local a section writes travels alone, by its address, and
   becomes (*n) in the extracted function; an inner block of the section
   declares its own `n` (a pointer, tested with `if (n)`), and a loop its
   own `i`.  Only the caller's `n` may become (*n): the inner one's test
   compiled as `if ((*n))` and counted the wrong thing, and the loop's
   `(*i) < 4` held the section on a compiler error. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 1000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const char *labels[4] = { "red", 0, "blue", 0 };
static long named, visits, sum;

static void *worker(void *arg)
{
	long n = 0;
	int i = (int)(long)arg;

	for (int r = 0; r < IT; r++) {
		pthread_mutex_lock(&m);
		{
			const char *n = labels[visits & 3];

			if (n)
				named++;
			visits++;
		}
		n++;
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	for (int i = 0; i < 4; i++)
		sum += i;
	pthread_mutex_unlock(&m);
	return (void *)(n + i);
}

int main(void)
{
	pthread_t t[NT];
	long total = 0;
	void *ret;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		total += (long)ret;
	}
	printf("named %ld visits %ld sum %ld returned %ld\n", named, visits,
	       sum, total);
	return 0;
}
