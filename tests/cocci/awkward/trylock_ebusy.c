/*
 * Trylocks tested against EBUSY, the way the manual page words the
 * result: skip the work when another thread has the lock.  One tests the
 * call directly, one keeps the result in a local first, one runs its
 * section only when the result is not EBUSY.  A mutex gives a trylock 0
 * or EBUSY, so each is a trylock section like `!= 0` / `== 0`.
 */
/* expect: transformed */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t flush_mu = PTHREAD_MUTEX_INITIALIZER;
static long flushed, skipped, pending;

/* one flusher at a time; the others go on */
static int try_flush(long n)
{
	if (pthread_mutex_trylock(&flush_mu) == EBUSY)
		return 0;
	flushed += n;
	pending = 0;
	pthread_mutex_unlock(&flush_mu);
	return 1;
}

static int try_note(void)
{
	int rc = pthread_mutex_trylock(&flush_mu);

	if (EBUSY == rc)
		return 0;
	pending++;
	pthread_mutex_unlock(&flush_mu);
	return 1;
}

static void try_count(long *mine)
{
	if (pthread_mutex_trylock(&flush_mu) != EBUSY) {
		(*mine)++;
		pthread_mutex_unlock(&flush_mu);
	}
}

static void *run(void *arg)
{
	long did = 0, mine = 0;

	for (int i = 0; i < 20000; i++) {
		if (try_flush(1) || try_note())
			did++;
		else {
			pthread_mutex_lock(&flush_mu);
			skipped++;
			pthread_mutex_unlock(&flush_mu);
		}
		try_count(&mine);
	}
	*(long *)arg = did;
	return NULL;
}

int main(void)
{
	pthread_t th[3];
	long did[3];
	long total = 0;

	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, run, &did[i]);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		total += did[i];
	}
	printf("%s\n", total + skipped == 60000 ? "every round counted once"
						  : "miscounted");
	return 0;
}
