/* SPDX-License-Identifier: MIT */
/* expect: held the thread's alternate signal stack (sigaltstack) */
/* Calls that read the calling thread's own state, written the old ways:
   getcpu through syscall(SYS_getcpu) and the alternate signal stack
   (sigaltstack()).  On a server thread they would read the server's:
   both sections stay in place. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long cpus, alts;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		unsigned cpu = 0;
		stack_t ss;
		pthread_mutex_lock(&m);
		syscall(SYS_getcpu, &cpu, NULL, NULL);
		cpus += cpu < 1024;
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&m);
		if (sigaltstack(NULL, &ss) == 0)
			alts += (ss.ss_flags & SS_DISABLE) != 0;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", cpus, alts);
	return 0;
}
