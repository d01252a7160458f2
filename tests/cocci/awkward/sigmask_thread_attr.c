/* SPDX-License-Identifier: MIT */
/* expect: held the SIGPIPE or SIGXFSZ the section's write may raise */
/* The I/O thread starts with every signal blocked, through its attributes
   (glibc's pthread_attr_setsigmask_np()); no thread calls
   pthread_sigmask().
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

static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static int conn_fd[2];
static int tx_errors;

static void *conn_tx(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&conn_lock);
	if (write(conn_fd[1], "x", 1) < 0 && errno == EPIPE)
		tx_errors++;
	pthread_mutex_unlock(&conn_lock);
	return NULL;
}

int main(void)
{
	pthread_attr_t attr;
	sigset_t all;
	pthread_t th;

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setsigmask_np(&attr, &all);
	if (pipe(conn_fd) != 0)
		return 1;
	close(conn_fd[0]);
	if (pthread_create(&th, &attr, conn_tx, NULL) != 0)
		return 1;
	pthread_attr_destroy(&attr);
	pthread_join(th, NULL);
	pthread_mutex_lock(&conn_lock);
	printf("tx_errors %d\n", tx_errors);
	pthread_mutex_unlock(&conn_lock);
	return 0;
}
