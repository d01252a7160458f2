/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A record declared inside the section (C99 style, mid-block),
 * whose address is handed to a helper that keeps it, through a cast:
 *   struct rec r = { id }; keep(id, (struct rec *)&r);
 * the rest of the function (after the unlock) uses the record through the
 * kept pointer.
 * The defect it guards against: the escape analysis (safety.escaping()/_hoist) decides
 * "address taken" from tokens, and '&' after ')' is read as a binary AND:
 * the cast hides the '&'.  So 'r' is not hoisted into the caller but
 * moves into the extracted function, and the kept pointer dangles after
 * the section (every algorithm: garbage sums).  Without the cast,
 * keep(id, &r), the tool hoists 'r' and all is well.  The same token
 * test decides by-pointer for locals declared before the section, where
 * libclang's facts happen to rescue it. */
#include <pthread.h>
#include <stdio.h>

struct rec { long v; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct rec *kept;
static long nkept;

__attribute__((noinline)) static void keep(struct rec *r)
{
	kept = r;
}

__attribute__((noinline)) static void scribble(void)
{
	volatile char junk[256];
	for (int i = 0; i < 256; i++)
		junk[i] = (char)0x55;
	(void)junk;
}

static long run(int id)
{
	long s = 0;
	int step = 1;
	pthread_mutex_lock(&m);
	struct rec r = { id };
	keep((struct rec *)&r);
	nkept += step;
	pthread_mutex_unlock(&m);
	scribble();
	for (int i = 0; i < 100; i++) {
		kept->v += 1;
		s += kept->v;
	}
	return s;
}

int main(void)
{
	long s = run(3);
	printf("s %ld nkept %ld\n", s, nkept);
	return s == 5350 ? 0 : 1;
}
