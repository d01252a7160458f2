/*
 * A mutex local to main(), with a static initialiser, never destroyed:
 * harmless for a pthread mutex, which holds no memory.  A liblock lock
 * does, which only the lock's object points to: once main() returns and
 * its frame is gone, a leak checker (AddressSanitizer's, in the sanitizer
 * build) reports it and the program exits with an error.  So it stays
 * POSIX, saying to destroy it or make it static.
 */
/* expect: refused that is never destroyed */
#include <pthread.h>
#include <stdio.h>

struct job {
	pthread_mutex_t *mu;
	long *done;
};

static void *work(void *p)
{
	struct job *j = p;

	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(j->mu);
		(*j->done)++;
		pthread_mutex_unlock(j->mu);
	}
	return NULL;
}

int main(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	long done = 0;
	struct job jobs[2];
	pthread_t th[2];

	for (int i = 0; i < 2; i++) {
		jobs[i].mu = &mu;
		jobs[i].done = &done;
		pthread_create(&th[i], NULL, work, &jobs[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("done %ld\n", done);
	return 0;
}
