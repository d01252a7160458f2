/* SPDX-License-Identifier: MIT */
/* A pre-forking server counts its children under a lock and forks inside
   the section; the child runs its work after the unlock.  fork() copies
   the calling thread only: on the server thread the child would be a copy
   of the server, never back in the caller's code, and the parent would
   wait for an exit status that does not come.  Held. */
/* expect: held fork() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NT 2
#define IT 3

static pthread_mutex_t kids_lock = PTHREAD_MUTEX_INITIALIZER;
static int nkids;

static void *spawner(void *arg)
{
	long id = (long)arg;
	int i, bad = 0;

	for (i = 0; i < IT; i++) {
		pid_t pid;
		int st;

		pthread_mutex_lock(&kids_lock);
		pid = fork();
		if (pid > 0)
			nkids++;
		pthread_mutex_unlock(&kids_lock);
		if (pid == 0)
			_exit((int)(10 + id));
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 10 + id)
			bad++;
	}
	return (void *)(long)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, spawner, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("kids %d bad %ld\n", nkids, bad);
	return bad == 0 && nkids == NT * IT ? 0 : 1;
}
