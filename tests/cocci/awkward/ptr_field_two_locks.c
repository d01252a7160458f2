/*
 * A thread argument's lock pointer given the address of one lock for some
 * threads and of another for the others.  The pointer and both locks
 * change type together, and a section through the pointer runs on
 * whichever lock it holds, as it did with pthreads; main() also takes
 * one of them by name.  (Refused until the pointer could hold only one
 * lock.)
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t even_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t odd_lock = PTHREAD_MUTEX_INITIALIZER;
static long evens, odds;

struct job {
	pthread_mutex_t *mu;
	long *counter;
};

static void *run(void *p)
{
	struct job *j = p;

	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(j->mu);
		(*j->counter)++;
		pthread_mutex_unlock(j->mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[4];
	struct job jobs[4];

	for (int i = 0; i < 4; i++) {
		if (i % 2 == 0) {
			jobs[i].mu = &even_lock;
			jobs[i].counter = &evens;
		} else {
			jobs[i].mu = &odd_lock;
			jobs[i].counter = &odds;
		}
		pthread_create(&th[i], NULL, run, &jobs[i]);
	}
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&even_lock);
		evens += 2;
		pthread_mutex_unlock(&even_lock);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("%ld %ld\n", evens, odds);
	return 0;
}
