/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Inline asm in the section writes a local through an output
 * operand ("=r"(got)), the local being read after the unlock (reading a
 * timestamp counter or a CPU register into a local under a lock).
 * The defect it guards against: the tool decides "written" from the token after the
 * name; 'got' is followed by ')' and counts as a read, so it is not
 * copied back: the caller's 'got' stays 0.  Expected "got 1..10 sum 55",
 * the rewritten program printed "sum 0" (every algorithm). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long ticket;

int main(void)
{
	unsigned long got = 0, sum = 0, step = 1;
	for (int i = 0; i < 10; i++) {
		pthread_mutex_lock(&m);
		__asm__ volatile("lea (%1,%2), %0" : "=r"(got) : "r"(ticket), "r"(step));
		ticket = got;
		pthread_mutex_unlock(&m);
		sum += got;
	}
	printf("sum %lu ticket %lu\n", sum, ticket);
	return sum == 55 ? 0 : 1;
}
