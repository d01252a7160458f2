/* SPDX-License-Identifier: MIT */
/* A static trylock helper returning the lock as a void *, called only
   through a macro (TRY_SLOT): the calls inside the macro body are not
   seen, so where its result goes cannot be told, and the slot locks stay
   POSIX, with the reason. */
/* expect: refused named in a macro */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 2000
#define NS 4

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

#define TRY_SLOT(s) slot_trylock(s)

static void run(int s)
{
	void *h;

	while ((h = TRY_SLOT(s)) == NULL)
		;
	done[s % NS]++;
	pthread_mutex_unlock(h);
}

static void *worker(void *arg)
{
	int i;

	for (i = 0; i < IT; i++)
		run(i + (int)(long)arg);
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
