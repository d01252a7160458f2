/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The section's first statement reassigns a struct local from an
 * expression that reads it, cur = step(cur, shared); (functional-style
 * update of a state struct), the struct being used after the unlock.
 * The defect it guards against: analyse.variables() sees the first occurrence of 'cur'
 * followed by '=' at the top level of the section ("assigned first") and
 * decides the section does not read it on entry (the right-hand side's
 * read is not considered), so 'cur' is not copied in: the extracted
 * function declares "struct acc cur = { 0 };" and computes from zeros.
 * Expected "sum 110 n 2", the rewritten program printed "sum 10 n 1" (every
 * algorithm).  For a scalar (v = v * 2 + g) gcc's uninitialised-use
 * warning triggers the by-pointer repair; aggregates (structs, also
 * _Complex: z = z * 2.0 gives 0+0i) are zero-initialised, which hides it. */
#include <pthread.h>
#include <stdio.h>

struct acc { long sum, n; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long shared = 10;

static struct acc step(struct acc a, long v)
{
	a.sum += v;
	a.n++;
	return a;
}

int main(void)
{
	struct acc cur = { 100, 1 };
	long k = 2;

	pthread_mutex_lock(&m);
	cur = step(cur, shared);
	shared += k;
	pthread_mutex_unlock(&m);
	printf("sum %ld n %ld shared %ld\n", cur.sum, cur.n, shared);
	return cur.sum == 110 ? 0 : 1;
}
