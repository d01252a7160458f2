/* SPDX-License-Identifier: MIT */
/* unbound's ub_wait(): the section of the inner lock ends early, and
   the code after that unlock releases the outer lock before leaving the
   loop:
       lock(&pipe); lock(&cfg);
       if (pending == 0) { unlock(&cfg); unlock(&pipe); break; }
       unlock(&cfg); ...; unlock(&pipe);
   That code runs in the caller, after the section: the outer unlock
   there is no lock call inside the section.  The inner section used to
   be held ("pthread_mutex_unlock() called inside an expression"); now
   it is delegated, and the outer one, whose unlock sits in the inner
   one's exit, runs in place. */
/* expect: transformed */
/* expect: held nested sections with early exits */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t pipe_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cfg_mu = PTHREAD_MUTEX_INITIALIZER;
static int pending = 2000;
static long answered;

static void *waiter(void *arg)
{
	long mine = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pipe_mu);
		pthread_mutex_lock(&cfg_mu);
		if (pending == 0) {
			pthread_mutex_unlock(&cfg_mu);
			pthread_mutex_unlock(&pipe_mu);
			break;
		}
		pending--;
		pthread_mutex_unlock(&cfg_mu);
		answered++;
		mine++;
		pthread_mutex_unlock(&pipe_mu);
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[4];
	long sum = 0;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, waiter, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("answered %ld sum %ld pending %d\n", answered, sum, pending);
	return answered == 2000 && sum == 2000 ? 0 : 1;
}
