/* SPDX-License-Identifier: MIT */
/* expect: held sets a thread's signal mask with pthread_sigmask() */
/* Writers that block SIGPIPE in their own signal mask (the "signals go
   to one thread" pattern) and write to a pipe with no reader under a
   lock: each write fails with EPIPE and the signal stays pending for the
   writer, which goes on.  Run on a server thread, which leaves SIGPIPE
   unblocked (so that a program that does not block it dies or runs its
   handler as it would), the first write would end the process: the
   section stays in place, in the thread whose mask it needs. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static int wfd;
static long epipes, writes;

static void *writer(void *arg)
{
	sigset_t pipe_only;

	(void)arg;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
	for (int i = 0; i < 5; i++) {
		pthread_mutex_lock(&wlock);
		writes++;
		if (write(wfd, "x", 1) < 0 && errno == EPIPE)
			epipes++;
		pthread_mutex_unlock(&wlock);
	}
	return NULL;
}

int main(void)
{
	int p[2];
	pthread_t t[2];

	if (pipe(p) != 0)
		return 2;
	close(p[0]);
	wfd = p[1];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, writer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("writes %ld epipes %ld\n", writes, epipes);
	return epipes == 10 ? 0 : 1;
}
