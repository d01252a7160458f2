/* SPDX-License-Identifier: MIT */
/* expect: held kill() of its own process */
/* A section signals its own process with kill(getpid(), SIG) (the
 * old spelling of raise()) and relies on the handler having run when
 * kill() returns (Linux delivers a process-directed signal to the sending
 * thread when that thread does not block it).
 * The defect it guards against: raise() makes a section held, kill(getpid(), ...) does
 * not.  Delegated, under LIBLOCK_LOCK=rcl the server thread (all signals
 * blocked) sends it, the signal goes to another thread later, and the
 * section never sees its handler's effect: expected "handled 20
 * seen_sync 20", the rewritten program printed "handled 20 seen_sync 0".  Same for
 * sigqueue(getpid(), ...). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t handled;
static long seen_sync;

static void on_usr1(int s) { (void)s; handled++; }

int main(void)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&m);
		int before = handled;
		kill(getpid(), SIGUSR1);
		if (handled == before + 1)
			seen_sync++;
		pthread_mutex_unlock(&m);
	}
	usleep(100000);
	printf("handled %d seen_sync %ld\n", (int)handled, seen_sync);
	return seen_sync == 20 ? 0 : 1;
}
