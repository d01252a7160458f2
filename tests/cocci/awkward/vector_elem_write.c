/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A GCC vector local (SIMD code) whose elements are assigned in
 * the section (snap[0] = ...), read after the unlock.
 * The defect it guards against: 'snap' followed by '[' counts as a read (right for
 * arrays and pointers, which travel by pointer, wrong for a vector, which
 * travels by value): not copied back.  Expected "snap 20 40", rewritten
 * prints "snap 0 0" (every algorithm).  (Without the read of snap[0] in
 * the section, gcc's -Wunused-but-set-variable saves it: held.) */
#include <pthread.h>
#include <stdio.h>

typedef long v2l __attribute__((vector_size(16)));
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long lo_total, hi_total;

int main(void)
{
	v2l snap = { 0, 0 };
	long k = 2;
	for (int i = 0; i < 10; i++) {
		pthread_mutex_lock(&m);
		lo_total += k;
		hi_total += 2 * k;
		snap[0] = lo_total;
		snap[1] = hi_total + snap[0] * 0;
		pthread_mutex_unlock(&m);
	}
	printf("snap %ld %ld\n", snap[0], snap[1]);
	return snap[0] == 20 ? 0 : 1;
}
