/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Workers block SIGHUP and SIGALRM, which a dedicated thread would
   handle (xfs_repair's threads.c), and report under a lock with
   fprintf().  A write raises SIGPIPE or SIGXFSZ for the thread that
   makes it; no mask of this program holds either, so the server thread
   and the workers treat them alike and the reporting section moves.
   (It was held for any pthread_sigmask() in the program.) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#define NWORKERS 3

static pthread_mutex_t report_mu = PTHREAD_MUTEX_INITIALIZER;
static int reports;

static void block_async_signals(void)
{
	sigset_t quiet;

	sigemptyset(&quiet);
	sigaddset(&quiet, SIGHUP);
	sigaddset(&quiet, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &quiet, NULL);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	block_async_signals();
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(&report_mu);
		reports++;
		fprintf(stderr, "worker %ld: pass %d\n", id, i);
		pthread_mutex_unlock(&report_mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t tid[NWORKERS];

	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&tid[i], NULL, worker, (void *)i);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tid[i], NULL);
	printf("%d reports\n", reports);
	return 0;
}
