/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* An error-injection hook ends the process with kill(getpid(), SIGKILL)
   after a set number of writes (xfsprogs' platform_crash()), from inside
   the sections that count the writes.  SIGKILL ends every thread
   whichever thread sends it, so the section may run on the server; a
   kill() of its own process with a signal that can be handled or
   blocked still keeps its section held (kill_self.c).  Injection is off
   in this run. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NWRITERS 3

static pthread_mutex_t io_mu = PTHREAD_MUTEX_INITIALIZER;
static long writes_before_crash = -1;
static long blocks_written;

static void maybe_crash(void)
{
	if (writes_before_crash > 0 && --writes_before_crash == 0)
		kill(getpid(), SIGKILL);
}

static void *writer(void *arg)
{
	long blocks = (long)arg;

	for (long i = 0; i < 4000; i++) {
		pthread_mutex_lock(&io_mu);
		blocks_written += blocks;
		maybe_crash();
		pthread_mutex_unlock(&io_mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[NWRITERS];

	if (argc > 1)
		writes_before_crash = atol(argv[1]);
	for (long i = 0; i < NWRITERS; i++)
		pthread_create(&tid[i], NULL, writer, (void *)(i + 1));
	for (int i = 0; i < NWRITERS; i++)
		pthread_join(tid[i], NULL);
	printf("%ld blocks\n", blocks_written);
	return 0;
}
