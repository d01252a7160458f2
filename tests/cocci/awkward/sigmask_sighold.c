/* SPDX-License-Identifier: MIT */
/* expect: held the SIGPIPE or SIGXFSZ the section's write may raise */
/* The I/O thread blocks SIGPIPE with System V's sighold().
   The peer has gone: the write under the connection lock must fail with
   EPIPE, as it does on a thread with SIGPIPE blocked.  Delegated, it
   would run on a server thread, where SIGPIPE is not blocked, and kill
   the process.  (Found by probing with tgt's shapes.) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* glibc marks sighold() deprecated; the code is older than that */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static int conn_fd[2];
static int tx_errors;

static void *conn_tx(void *arg)
{
	(void)arg;
	sighold(SIGPIPE);
	pthread_mutex_lock(&conn_lock);
	if (write(conn_fd[1], "x", 1) < 0 && errno == EPIPE)
		tx_errors++;
	pthread_mutex_unlock(&conn_lock);
	return NULL;
}

int main(void)
{
	pthread_t th;

	if (pipe(conn_fd) != 0)
		return 1;
	close(conn_fd[0]);
	if (pthread_create(&th, NULL, conn_tx, NULL) != 0)
		return 1;
	pthread_join(th, NULL);
	pthread_mutex_lock(&conn_lock);
	printf("tx_errors %d\n", tx_errors);
	pthread_mutex_unlock(&conn_lock);
	return 0;
}
