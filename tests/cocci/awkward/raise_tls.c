/* SPDX-License-Identifier: MIT */
/* raise() inside the section: the signal goes to the thread that calls
   it, whose handler counts it in a thread-local counter that the thread
   checks afterwards.  On the server thread the handler would run there
   (or wait behind the server's signal mask).  Held. */
/* expect: held raise() */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#define NT 3
#define IT 50

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static __thread volatile sig_atomic_t got;
static long pokes;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		pokes++;
		raise(SIGUSR1);
		pthread_mutex_unlock(&m);
	}
	return (void *)(long)(got == IT);
}

int main(void)
{
	pthread_t t[NT];
	long i, ok = 0;
	void *r;

	signal(SIGUSR1, on_usr1);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		ok += (long)r;
	}
	printf("pokes %ld ok %ld\n", pokes, ok);
	return ok == NT ? 0 : 1;
}
