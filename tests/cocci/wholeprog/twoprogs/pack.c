/* SPDX-License-Identifier: MIT */
/* The first program of the tree: it blocks SIGPIPE in its threads and
   cancels its spinner thread, whose section may print (a cancellation
   point): pack_lock stays POSIX. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t pack_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pack_cv = PTHREAD_COND_INITIALIZER;
static int packed, ready;
static long spins;

void report(const char *what, int n)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("%s %d\n", what, n);
}

static void *spinner(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pack_lock);
		if (spins++ < 0)
			printf("spin %ld\n", spins);
		pthread_mutex_unlock(&pack_lock);
		usleep(1000);
	}
	return NULL;
}

static void *packer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pack_lock);
	while (!ready)
		pthread_cond_wait(&pack_cv, &pack_lock);
	packed++;
	pthread_mutex_unlock(&pack_lock);
	return NULL;
}

int main(void)
{
	pthread_t s, p[2];

	pthread_create(&s, NULL, spinner, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&p[i], NULL, packer, NULL);
	pthread_mutex_lock(&pack_lock);
	ready = 1;
	pthread_cond_broadcast(&pack_cv);
	pthread_mutex_unlock(&pack_lock);
	for (int i = 0; i < 2; i++)
		pthread_join(p[i], NULL);
	pthread_cancel(s);
	pthread_join(s, NULL);
	report("packed", packed);
	return 0;
}
