/* SPDX-License-Identifier: MIT */
/* expect: held unshare() (it changes the calling thread's namespaces */
/* unshare(CLONE_FILES) gives the calling thread a private file table:
   delegated, the server thread unshared its own and opened the file
   there, and the caller's read() of the descriptor failed (rcl printed
   "0 -1" where the original prints "0 1").  (Found by probing with
   varnish's shapes.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <fcntl.h>
#include <unistd.h>

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1, ur;

static void open_private(void)
{
	pthread_mutex_lock(&mtx);
	ur = unshare(CLONE_FILES);      /* per-thread: the caller's fd table */
	fd = open("/proc/self/stat", O_RDONLY);
	pthread_mutex_unlock(&mtx);
}

int main(void)
{
	char c;
	open_private();
	printf("%d %d\n", ur, (int)read(fd, &c, 1));
	return 0;
}
