/* SPDX-License-Identifier: MIT */
/* A program that cancels a thread keeps a lock POSIX when a section may
   reach a cancellation point on the server.  Knot DNS's sections call
   sigfillset() (dthreads.c), sysconf() and le64toh() (whose glibc inline
   is __uint64_identity()): none of them is a cancellation point, and
   they kept 18 of its sections' locks POSIX. */
/* expect: transformed */
#include <endian.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long pages, masks;
static uint64_t sum;

static void *idler(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *worker(void *arg)
{
	uint64_t v = (uint64_t)(uintptr_t)arg;

	for (int i = 0; i < 2000; i++) {
		sigset_t set;

		pthread_mutex_lock(&mu);
		sigfillset(&set);
		masks += sigismember(&set, SIGINT);
		pages += sysconf(_SC_PAGESIZE) > 0;
		sum += le64toh(htole64(v));
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3], idle;

	pthread_create(&idle, NULL, idler, NULL);
	for (uintptr_t i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_cancel(idle);
	pthread_join(idle, NULL);
	printf("pages %ld masks %ld sum %llu\n", pages, masks,
	       (unsigned long long)sum);
	return pages == 6000 && masks == 6000 && sum == 12000 ? 0 : 1;
}
