/*
 * A helper that locks whatever mutex its caller hands it, through a
 * parameter that happens to share its name with the program's hot global
 * lock (`lock` is the name everybody picks).  The helper's parameter
 * carries the address of one other lock, a function-static one, so its
 * section runs in place on that lock's word; the global's own sections
 * are delegated.  The parameter is not the global: the global is not
 * kept POSIX because of it.
 */
/* expect: transformed */
/* expect: held parameter 'lock' of add_locked() */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long total, tally;

static void add_locked(pthread_mutex_t *lock, unsigned long *where,
		       unsigned long n)
{
	pthread_mutex_lock(lock);
	*where += n;
	pthread_mutex_unlock(lock);
}

static void *run(void *arg)
{
	static pthread_mutex_t tally_mu = PTHREAD_MUTEX_INITIALIZER;
	unsigned long id = (unsigned long)arg;

	for (unsigned long i = 0; i < 20000; i++) {
		pthread_mutex_lock(&lock);
		total += id + 1;
		pthread_mutex_unlock(&lock);
		add_locked(&tally_mu, &tally, 2);
	}
	pthread_mutex_lock(&lock);
	if (id == 0)
		total += 0;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t th[4];

	for (unsigned long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, run, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("total %lu, tally %lu\n", total, tally);
	return 0;
}
