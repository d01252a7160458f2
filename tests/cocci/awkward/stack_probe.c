/* SPDX-License-Identifier: MIT */
/* expect: held the address of 'here', declared in the section */
/* A conservative-GC / stack-depth check: under the collector's
 * lock, the current stack position is read as the address of a local
 * declared in the section and compared with the thread's stack base
 * (Boehm GC's GC_approx_sp() idiom, interpreters' stack-overflow checks).
 * The defect it guards against: 'here' is declared in the section and used only there,
 * so it moves into the extracted function; under LIBLOCK_LOCK=rcl that
 * frame is on the server thread's stack, far from the caller's base.
 * Expected "shallow 300 deep 0", rewritten under rcl prints
 * "shallow 0 deep 300".  __builtin_frame_address() is held for this very
 * reason; the address of a section-local used as a stack position is not
 * (declared before the lock, 'here' travels by pointer and all is well). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static pthread_mutex_t gc = PTHREAD_MUTEX_INITIALIZER;
static long shallow, deep;

static void scan(uintptr_t base)
{
	pthread_mutex_lock(&gc);
	char here = 0;
	uintptr_t h = (uintptr_t)&here;
	uintptr_t d = base > h ? base - h : h - base;
	if (d < 65536)
		shallow++;
	else
		deep++;
	pthread_mutex_unlock(&gc);
}

static void *worker(void *arg)
{
	char base;
	(void)arg;
	for (int i = 0; i < 100; i++)
		scan((uintptr_t)&base);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("shallow %ld deep %ld\n", shallow, deep);
	return deep == 0 ? 0 : 1;
}
