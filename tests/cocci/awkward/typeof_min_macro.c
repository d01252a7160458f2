/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The kernel-style type-safe min() macro (a statement expression
 * declaring __typeof__ locals _a and _b), used in the section
 * (got = min(want, budget);) -- found in systemd, QEMU, Linux tools and
 * countless projects' util headers.
 * Before: held, "cannot find the declaration of local '_a'": a
 * local declared by a macro's statement expression, whose type the tool
 * cannot write (__typeof__), was not found.  OVER-REFUSAL. */
#include <pthread.h>
#include <stdio.h>

#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long budget = 10000, granted;

static void *worker(void *arg)
{
	long want = (long)arg + 3, got, mine = 0;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&m);
		got = min(want, budget);
		budget -= got;
		granted += got;
		pthread_mutex_unlock(&m);
		mine += got;
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[3];
	long s = 0;
	void *r;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		s += (long)r;
	}
	printf("s %ld granted %ld budget %ld\n", s, granted, budget);
	return 0;
}
