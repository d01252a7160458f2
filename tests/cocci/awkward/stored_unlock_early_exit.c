/* SPDX-License-Identifier: MIT */
/* mbuffer.c's style of error checking: every unlock's result goes to a
   local that assert() then reads, also on the early exits and in the
   branches of an if that ends the section (`err = unlock(&m);
   assert(err == 0); return 1;`).  The exits' code after the section
   starts with `err = 0;`, what unlocking a plain mutex gives.  Such an
   unlock used to be taken for a statement of the section: "returns with
   the lock held", and the section stayed in place. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ROUNDS 20000

static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;
static int free_slots = 3;
static long taken, refused, released;

/* 1: got a slot; 0: none free */
static int take_slot(void)
{
	int err;

	err = pthread_mutex_lock(&slots_mu);
	assert(err == 0);
	if (free_slots == 0) {
		refused++;
		err = pthread_mutex_unlock(&slots_mu);
		assert(err == 0);
		return 0;
	}
	free_slots--;
	taken++;
	err = pthread_mutex_unlock(&slots_mu);
	assert(err == 0);
	return err == 0;
}

/* the section ends in an if whose branches both unlock and return */
static int give_slot(int keep_count)
{
	int err;

	err = pthread_mutex_lock(&slots_mu);
	assert(err == 0);
	free_slots++;
	if (keep_count) {
		released++;
		err = pthread_mutex_unlock(&slots_mu);
		assert(err == 0);
		return 1;
	} else {
		err = pthread_mutex_unlock(&slots_mu);
		if (err != 0)
			return -1;
		return 0;
	}
}

static void *worker(void *arg)
{
	long mine = 0;

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		if (take_slot()) {
			mine++;
			if (give_slot(i & 1) < 0)
				return (void *)-1L;
		}
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long got = 0;

	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		if ((long)r < 0)
			return 1;
		got += (long)r;
	}
	/* every take was given back; each thread gave back with keep_count
	   on odd rounds only, so released <= taken */
	printf("free=%d consistent=%d total=%d\n", free_slots,
	       got == taken && released <= taken,
	       taken + refused == (long)NTHREADS * ROUNDS);
	return free_slots == 3 ? 0 : 1;
}
