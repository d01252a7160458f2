/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The first statement of the section assigns a local from an
 * expression that reads that same local -- v = v * 2 + g;  p = p->next;
 * cur = step(cur, shared); state = next(state); -- and the local is used
 * after the unlock.  About as ordinary as sections get.
 * The defect it guards against: analyse.variables() sees the first occurrence of the
 * local followed by '=' at the top level of the section ("assigned
 * first") and concludes the section does not read it on entry: the
 * right-hand side's read is ignored.  Because the local is read after the
 * section it comes back (out), but it is not copied in: the extracted
 * function declares it "= { 0 }" (which also silences gcc's
 * uninitialised-use warning, so the compile check does not catch it) and
 * computes from zero.  Expected "v 11 sum 110 n 2", the rewritten program printed
 * "v 1 sum 10 n 1" (every algorithm).  Pointers start NULL (p = p + 1
 * then crashes), doubles, unions, _Atomic and _Complex locals alike. */
#include <pthread.h>
#include <stdio.h>

struct acc { long sum, n; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long g = 1, shared = 10;

static struct acc step(struct acc a, long v)
{
	a.sum += v;
	a.n++;
	return a;
}

int main(void)
{
	long v = 5, k = 1;
	struct acc cur = { 100, 1 };

	pthread_mutex_lock(&m);
	v = v * 2 + g;
	g += k;
	pthread_mutex_unlock(&m);

	pthread_mutex_lock(&m);
	cur = step(cur, shared);
	shared += k;
	pthread_mutex_unlock(&m);

	printf("v %ld sum %ld n %ld\n", v, cur.sum, cur.n);
	return v == 11 && cur.sum == 110 ? 0 : 1;
}
