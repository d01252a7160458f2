/* SPDX-License-Identifier: MIT */
/* expect: held the raw prctl system call (it acts on the calling thread only) */
/* A worker names itself with a raw system call inside its section, as
   code that avoids glibc's wrappers does (here prctl(PR_SET_NAME); the
   raw SYS_setuid family acts on the calling thread only too, where
   glibc's setuid() makes every thread change).  Delegated, the server
   thread would take the name: the worker would still read "main". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static int named;

static void *worker(void *arg)
{
	char name[16] = "";

	pthread_mutex_lock(&names_lock);
	syscall(SYS_prctl, PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
	named++;
	pthread_mutex_unlock(&names_lock);
	prctl(PR_GET_NAME, name, 0, 0, 0);
	printf("worker calls itself %s\n", name);
	return NULL;
}

int main(void)
{
	pthread_t t;

	prctl(PR_SET_NAME, "main", 0, 0, 0);
	pthread_create(&t, NULL, worker, "rawname");
	pthread_join(t, NULL);
	printf("%d named\n", named);
	return 0;
}
