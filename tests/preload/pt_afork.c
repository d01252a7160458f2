/* SPDX-License-Identifier: MIT */
/*
 * fork with a library's own fork handlers (libptfork: lock in prepare,
 * unlock in the parent; in the child, unlock, then a new thread that
 * takes the lock 100 times), the library initialised before the
 * interposer, while three threads hammer that library's lock, which
 * nobody used before the first fork.  The child's handler and the child
 * must find the lock free.  Exit 77 under a sanitizer: they are not
 * fork-safe in a multithreaded process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt.h"

extern pthread_mutex_t ptfork_lock;
int scale = 1;

static void *hammer(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		CHECK(pthread_mutex_lock(&ptfork_lock));
		CHECK(pthread_mutex_unlock(&ptfork_lock));
	}
	return arg;
}

int main(void)
{
	pthread_t t[3];
	int status;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "pt: afork skipped: sanitizers are not fork-safe in a "
			"multithreaded process\n");
	return 77;
#endif
	for (int round = 0; round < 8; round++) {
		pid_t pid;

		if (round == 1) /* first fork with the lock never used */
			for (int i = 0; i < 3; i++)
				CHECK(pthread_create(&t[i], NULL, hammer,
						     NULL));
		if ((pid = fork()) < 0)
			FAIL("fork: %s", strerror(errno));
		if (pid == 0) {
			alarm(20);
			CHECK(pthread_mutex_lock(&ptfork_lock));
			CHECK(pthread_mutex_unlock(&ptfork_lock));
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			FAIL("afork child %d failed (status %#x)", round,
			     status);
	}
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL));
	return 0;
}
