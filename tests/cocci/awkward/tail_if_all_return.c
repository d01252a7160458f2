/* SPDX-License-Identifier: MIT */
/* mbuffer.c syncSenders(): the section ends in an if/else whose every
   branch unlocks and returns.  After liblock_exec() the code of each
   branch runs by rcl_exit, and the last test is an else: with
   "else if (rcl_exit == 2)" GCC warned "control reaches end of non-void
   function", and the section was held. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define N 4
static pthread_mutex_t SendMut = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t SendCond = PTHREAD_COND_INITIALIZER;
static int ActSenders = N;
static long gen;

static int syncSenders(void)
{
	long my;

	pthread_mutex_lock(&SendMut);
	my = gen;
	if (--ActSenders) {
		while (gen == my)
			pthread_cond_wait(&SendCond, &SendMut);
		pthread_mutex_unlock(&SendMut);
		return 0;
	} else {
		ActSenders = N;
		gen++;
		pthread_mutex_unlock(&SendMut);
		pthread_cond_broadcast(&SendCond);
		return 1;
	}
}

static void *sender(void *arg)
{
	long leads = 0;
	for (int i = 0; i < 2000; i++)
		leads += syncSenders();
	return (void *)leads;
}

int main(void)
{
	pthread_t t[N];
	long total = 0;
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, sender, NULL);
	for (int i = 0; i < N; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("leaders %ld gen %ld\n", total, gen);
	return 0;
}
