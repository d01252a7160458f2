/* SPDX-License-Identifier: MIT */
/* A macro's body takes the address of the caller's local and stores it:
   PUBLISH() hands `&slot` to the registry, which the caller writes through
   after the unlock.  A copy of `slot` in an extracted function would leave
   the registry pointing into a stack frame that is gone; the macro's text
   cannot be made to name the caller's object, so the section runs in place
   on the lock word, and the tool says which macro and which local. */
/* expect: held macro PUBLISH */
/* expect: held 'slot' */
#include <pthread.h>
#include <stdio.h>

struct registry {
	long *where;
};

#define PUBLISH() (reg->where = &slot)

#define NT 4
#define IT 3000

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static long next_slot;

static long claim(struct registry *reg)
{
	long slot = -1;

	pthread_mutex_lock(&slot_lock);
	slot = next_slot++;
	PUBLISH();
	pthread_mutex_unlock(&slot_lock);
	*reg->where += 1000000;
	return slot;
}

static void *worker(void *arg)
{
	struct registry reg = { NULL };
	long sum = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		sum += claim(&reg) / 1000000;
	return (void *)sum;
}

int main(void)
{
	pthread_t t[NT];
	long i, tot = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		tot += (long)r;
	}
	printf("tot %ld\n", tot);
	return tot == (long)NT * IT ? 0 : 1;
}
