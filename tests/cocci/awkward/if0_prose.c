/* SPDX-License-Identifier: MIT */
/* Prose in an #if 0 block, with the apostrophes of English ("doesn't")
   and a stray backtick, before the sections, as old C code keeps notes
   and retired code; and a GCC identifier with a '$' in it.  The
   compiler skips the block; neither the tool's lexer nor Coccinelle's
   may run the apostrophe on into the functions after it. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 400

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static long tally, vms$hits;

#if 0
This doesn't work on the old boxes: the `tally' went negative when two
workers raced, so it's all under tally_lock now.  Don't remove the lock.
#endif

static void add(long n)
{
	pthread_mutex_lock(&tally_lock);
	tally += n;
	vms$hits++;
	pthread_mutex_unlock(&tally_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++)
		add(id);
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	long k;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)(k + 1));
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	printf("tally %ld hits %ld\n", tally, vms$hits);
	return tally == 6 * ROUNDS && vms$hits == WORKERS * ROUNDS ? 0 : 1;
}
