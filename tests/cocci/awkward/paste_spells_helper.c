/* SPDX-License-Identifier: MIT */
/* expect: refused add_locked() is named in a macro */
/* A macro pastes an operation's name onto `_locked` (APPLY(add, v)
   calls add_locked(&stats_mu, v)): the helper's calls there are not
   read, so its parameter is not followed and the locks it may be given
   stay POSIX.  Another macro pastes `st_ ## f`, which no function's
   name can come from. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

struct stats {
	long st_adds;
	long st_total;
};

#define FIELD_AT(f) ((int)offsetof(struct stats, st_##f))
#define APPLY(op, v) op##_locked(&stats_mu, (v))

static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static struct stats st;

static void add_locked(pthread_mutex_t *lk, long v)
{
	pthread_mutex_lock(lk);
	st.st_adds++;
	st.st_total += v;
	pthread_mutex_unlock(lk);
}

static void *worker(void *arg)
{
	for (long i = 0; i < 5000; i++)
		APPLY(add, (long)arg + i % 4);
	return NULL;
}

int main(void)
{
	pthread_t tid[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&tid[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(tid[i], NULL);
	printf("adds %ld total %ld (fields at %d and %d)\n", st.st_adds,
	       st.st_total, FIELD_AT(adds), FIELD_AT(total));
	return 0;
}
