/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A local written through a parenthesised lvalue inside the
 * section, (n) += want; (what a macro such as #define ADD(v, x) ((v) += (x))
 * produces when written out, and some people's style), read after.
 * The defect it guards against: 'n' is followed by ')' and counts as a read: it is
 * copied in but never back.  Expected "n 30", the rewritten program printed "n 0"
 * (every algorithm).  Same for (n)++ and (n) = ... . */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long pool = 100;

int main(void)
{
	long n = 0, want = 3;
	for (int i = 0; i < 10; i++) {
		pthread_mutex_lock(&m);
		(n) += want;
		pool -= want;
		pthread_mutex_unlock(&m);
	}
	printf("n %ld pool %ld\n", n, pool);
	return n == 30 ? 0 : 1;
}
