/* SPDX-License-Identifier: MIT */
/* collectd's one-`for` form of an object-like scoped lock macro, whose
   step is the unlock: a `break` in the body leaves the loop before the
   step, with the lock still held, and the code after it finishes the
   work and unlocks by hand.  The section is held (in place on the lock
   word), its break a jump past the written-out unlock. */
/* expect: held jumps out of the section with the lock held */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 700

#define STATE_LOCK \
	for (int st_i_ = state_lock(); st_i_ != 0; st_i_ = state_unlock())

static pthread_mutex_t state_mu = PTHREAD_MUTEX_INITIALIZER;
static long events, bonus;

static int state_lock(void)
{
	pthread_mutex_lock(&state_mu);
	return 1;
}

static int state_unlock(void)
{
	pthread_mutex_unlock(&state_mu);
	return 0;
}

static void *worker(void *arg)
{
	int r, kept;

	(void)arg;
	for (r = 0; r < ROUNDS; r++) {
		kept = 0;
		STATE_LOCK
		{
			events++;
			if (events % 7 == 0) {
				kept = 1;
				break; /* keep the lock for the bonus below */
			}
		}
		if (kept) {
			bonus++;
			state_unlock();
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	long e = 0, b = 0;
	int k;

	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, NULL);
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	STATE_LOCK
	{
		e = events;
		b = bonus;
	}
	printf("events %ld bonus %ld\n", e, b);
	return e == WORKERS * ROUNDS && b == e / 7 ? 0 : 1;
}
