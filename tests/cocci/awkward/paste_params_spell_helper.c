/* SPDX-License-Identifier: MIT */
/* expect: refused add_locked() is named in a macro */
/* A glue macro pastes its parameters only (`a ## b`); what it can spell
   is what its invocations give it, through the macros that pass their
   own parameters on: APPLY(add, v) gives GLUE(add, _locked), a call of
   add_locked(&stats_mu, v) that is not read.  The helper's parameter
   is then not followed, and the locks it may be given stay POSIX. */
#include <pthread.h>
#include <stdio.h>

#define GLUE(a, b) a ## b
#define APPLY(op, v) GLUE(op, _locked)(&stats_mu, (v))

static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static long GLUE(st_, adds), GLUE(st_, total);

static void add_locked(pthread_mutex_t *lk, long v)
{
	pthread_mutex_lock(lk);
	st_adds++;
	st_total += v;
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
	printf("adds %ld total %ld\n", st_adds, st_total);
	return 0;
}
