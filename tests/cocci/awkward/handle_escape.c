/* SPDX-License-Identifier: MIT */
/* A job queue whose workers try a slot's lock through a helper returning
   the mutex as a void *, and park it in the job itself (job->held) to
   release it later: the address goes into a structure field, which the
   tool does not follow, so the slot locks stay POSIX, with the reason. */
/* expect: refused where the tool does not follow it */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 2000
#define NS 4

struct job {
	int slot;
	void *held;
};

static pthread_mutex_t slot_locks[NS] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static long done[NS];

static void *slot_trylock(int s)
{
	pthread_mutex_t *l = &slot_locks[s % NS];

	if (pthread_mutex_trylock(l) != 0)
		return NULL;
	return l;
}

static void run(struct job *j)
{
	while ((j->held = slot_trylock(j->slot)) == NULL)
		;
	done[j->slot % NS]++;
	pthread_mutex_unlock(j->held);
}

static void *worker(void *arg)
{
	struct job j = { (int)(long)arg, NULL };
	int i;

	for (i = 0; i < IT; i++) {
		j.slot = i;
		run(&j);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, sum = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NS; i++)
		sum += done[i];
	printf("sum %ld (want %d)\n", sum, NT * IT);
	return sum == NT * IT ? 0 : 1;
}
