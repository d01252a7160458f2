/* SPDX-License-Identifier: MIT */
/* expect: held #undef MODE at line 40 inside the section: tally() uses MODE before it */
/* expect: held #undef LABEL at line 53 inside the section: relabel() changes LABEL before it */
/* #defines between a lock and its unlock.  In tally(), the section
   redefines MODE, which the function also reads before the section: the
   extracted function, placed before tally(), would carry the new MODE
   above that read; the section stays in place.  In count_fields(), the
   section defines and undefines its own X-macro helper, used nowhere
   else: it moves with the #defines.  relabel() redefines LABEL, and its
   section again, for the code after it: moved before relabel(), the
   section's #define would come before the function's, and that code
   would see the function's; the section stays in place. */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 4
#define ROUNDS 20000
#define MODE 1
#define FIELDS X(a) X(b) X(c)
#define LABEL 1

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static long before_sum, after_sum, nfields, late;
static int wrong;

static void count_fields(void)
{
	pthread_mutex_lock(&lk);
#define X(f) nfields++;
	FIELDS
#undef X
	pthread_mutex_unlock(&lk);
}

static void tally(void)
{
	long early = MODE;

	pthread_mutex_lock(&lk);
#undef MODE
#define MODE 2
	before_sum += early;
	after_sum += MODE;
	pthread_mutex_unlock(&lk);
}

static int relabel(void)
{
#undef LABEL
#define LABEL 5
	pthread_mutex_lock(&lk);
	late++;
#undef LABEL
#define LABEL 7
	pthread_mutex_unlock(&lk);
	return LABEL;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		tally();
		count_fields();
		if (relabel() != 7)
			__atomic_store_n(&wrong, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("before=%ld after=%ld fields=%ld late=%ld wrong=%d\n",
	       before_sum, after_sum, nfields, late, wrong);
	return before_sum == 1L * NWORKERS * ROUNDS &&
	       after_sum == 2L * NWORKERS * ROUNDS &&
	       nfields == 3L * NWORKERS * ROUNDS &&
	       late == 1L * NWORKERS * ROUNDS && !wrong ? 0 : 1;
}
