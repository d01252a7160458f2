/* SPDX-License-Identifier: MIT */
/* Lock debugging that records where the lock was taken: the section
   stores its function's return address (the call site of slot_take())
   and frame address as the owner's.  In an extracted function both would
   be the extracted function's own, called from liblock, under every
   algorithm.  Each call checks them against the values read before the
   lock.  Held. */
/* expect: held __builtin_return_address() in the section */
/* expect: held __builtin_frame_address() in the section */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 200

struct owner {
	void *site;
	void *frame;
	long takes;
};

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static struct owner slot_owner;

int slot_take(void);
int slot_frame(void);

int slot_take(void)
{
	void *site = __builtin_return_address(0);
	int ok;

	pthread_mutex_lock(&slot_lock);
	slot_owner.site = __builtin_return_address(0);
	slot_owner.takes++;
	ok = slot_owner.site == site;
	pthread_mutex_unlock(&slot_lock);
	return ok;
}

int slot_frame(void)
{
	void *frame = __builtin_frame_address(0);
	int ok;

	pthread_mutex_lock(&slot_lock);
	slot_owner.frame = __builtin_frame_address(0);
	ok = slot_owner.frame == frame;
	pthread_mutex_unlock(&slot_lock);
	return ok;
}

static void *worker(void *arg)
{
	long i, ok = 0;

	(void)arg;
	for (i = 0; i < IT; i++)
		ok += slot_take() + slot_frame();
	return (void *)ok;
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("takes %ld, owners recorded right %ld\n", slot_owner.takes, ok);
	return ok == 2L * NT * IT ? 0 : 1;
}
