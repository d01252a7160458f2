/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A local struct with an array member; a pointer into the member
 * is taken by array decay ('char *w = r.tag;', no '&' anywhere), the
 * section writes through that pointer and also sets another member.
 * The defect it guards against: rcl-refactor does not count the decay of an array
 * member as taking the struct's address, so 'r' travels by value: the
 * section writes w[0] into the caller's r, then sets r.len on its copy,
 * and the caller's 'r = rcl_ctx.out.r;' overwrites the caller's r with the
 * copy, losing w[0].  Expected "tag a len 1", rewritten prints "tag  len 1"
 * (every algorithm).  With '&r' (e.g. memset(&r, ...)) it is fine. */
#include <pthread.h>
#include <stdio.h>

struct rec { char tag[8]; int len; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

int main(void)
{
	struct rec r = { "", 0 };
	char *w = r.tag;

	pthread_mutex_lock(&m);
	w[0] = 'a';
	r.len = 1;
	total += r.len;
	pthread_mutex_unlock(&m);
	printf("tag %s len %d total %ld\n", r.tag, r.len, total);
	return r.tag[0] == 'a' ? 0 : 1;
}
