/* SPDX-License-Identifier: MIT */
/* A LOCKING(m) macro of one for statement: the initialisation locks and
   sets a flag, the step clears it and unlocks.  A break skips the step,
   so it leaves the loop with the mutex still locked; this program uses
   that on purpose (the caller empties the full buffer, then unlocks).
   The section cannot move to a server: it is held, and the break keeps
   skipping the unlock. */
/* expect: held jumps out of the section with the lock held */
#include <pthread.h>
#include <stdio.h>

#define CAP 16
#define PUTTERS 3
#define PUTS 500

#define LOCKING(m) \
	for (int lk_on = (pthread_mutex_lock(m), 1); lk_on; \
	     lk_on = 0, pthread_mutex_unlock(m))

static pthread_mutex_t buf_mx = PTHREAD_MUTEX_INITIALIZER;
static int fill, flushed, flushes;

static void *putter(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < PUTS; i++) {
		int full = 0;

		LOCKING(&buf_mx) {
			if (fill == CAP) {
				full = 1;
				break;
			}
			fill++;
		}
		if (full) {
			/* still locked: the break skipped the unlock */
			flushed += fill;
			fill = 1;
			flushes++;
			pthread_mutex_unlock(&buf_mx);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[PUTTERS];
	int i;

	for (i = 0; i < PUTTERS; i++)
		pthread_create(&th[i], NULL, putter, NULL);
	for (i = 0; i < PUTTERS; i++)
		pthread_join(th[i], NULL);
	printf("%d items, %d flushes\n", flushed + fill, flushes);
	return flushed + fill == PUTTERS * PUTS ? 0 : 1;
}
