/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* C99 style: a declaration in the middle of the section, used after it,
   whose initialiser reads locals that travel by pointer (their addresses
   went to parse_range() before the lock).  The extracted code must read
   them through the pointer in that initialiser too: hi - lo on two
   pointers still compiles, and counts in elements of 8 bytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;
static long total_width, ranges;

static int parse_range(const char *s, long *lo, long *hi)
{
	char *end;

	*lo = strtol(s, &end, 10);
	if (*end != '-')
		return -1;
	*hi = strtol(end + 1, &end, 10);
	return *end == '\0' ? 0 : -1;
}

static long add_range(const char *spec)
{
	long lo, hi;

	if (parse_range(spec, &lo, &hi) != 0)
		return -1;
	pthread_mutex_lock(&range_lock);
	ranges++;
	long width = hi - lo, twice = 2 * (hi - lo);
	total_width += width;
	pthread_mutex_unlock(&range_lock);
	return width + twice;
}

static void *worker(void *arg)
{
	static const char *specs[] = { "10-20", "0-1000", "5-6", "100-164" };
	long id = (long)arg, sum = 0;
	int i;

	for (i = 0; i < 5000; i++)
		sum += add_range(specs[(i + id) % 4]);
	return (void *)sum;
}

int main(void)
{
	pthread_t t[3];
	long i, sum = 0;
	void *r;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("ranges %ld width %ld returned %ld\n", ranges, total_width, sum);
	return 0;
}
