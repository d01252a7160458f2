/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A connection's write lock; the section write()s to a peer that
 * has gone away, and the program's SIGPIPE handler counts the event (the
 * signal is thread-directed: delivered to the thread that wrote).
 * The defect it guards against: the section has nothing thread-dependent in its text,
 * so it is delegated; under LIBLOCK_LOCK=rcl the write() runs on the RCL
 * server thread, whose signals are blocked, so the SIGPIPE stays pending
 * there and the handler never runs.  Expected "epipes 10 signals 10",
 * the rewritten program under rcl printed "epipes 10 signals 0"
 * (the server threads now leave SIGPIPE and SIGXFSZ unblocked).  (Conversely, a
 * thread that blocked SIGPIPE in its own mask relies on the server's
 * mask to survive: that works only because the server blocks signals.)
 * Calls that may raise a synchronous, thread-directed signal (write/send
 * on pipes and sockets: SIGPIPE; SIGXFSZ) depend on the calling thread. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t npipe;
static int wfd;
static long epipes;

static void on_pipe(int s) { (void)s; npipe++; }

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		pthread_mutex_lock(&wlock);
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
	signal(SIGPIPE, on_pipe);
	if (pipe(p) != 0)
		return 2;
	close(p[0]);
	wfd = p[1];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("epipes %ld signals %d\n", epipes, (int)npipe);
	return npipe == 10 ? 0 : 1;
}
