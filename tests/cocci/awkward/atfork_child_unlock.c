/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The classic fork-safety idiom (POSIX pthread_atfork rationale):
 * prepare takes the lock, the parent and child handlers release it, so
 * the child inherits a consistent, unlocked mutex and can use it.
 * The defect it guards against: rcl-refactor turns the handlers into liblock_lock() /
 * liblock_unlock() (held) and bump() into a delegated section.  Under
 * LIBLOCK_LOCK=posix the child's liblock_unlock() returned EPERM (liblock's
 * posix algorithm does not accept the fork child as the owner), the lock
 * stays taken in the child, and the child's first section blocks for
 * ever: the program hung (timeout, exit 124) instead of printing
 * "hits 3001 child 3".  rcl and mcs are fine. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long hits;

static void prepare(void) { pthread_mutex_lock(&m); }
static void parent(void) { pthread_mutex_unlock(&m); }
static void child(void) { pthread_mutex_unlock(&m); }

static void bump(long n)
{
	pthread_mutex_lock(&m);
	hits += n;
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		bump(1);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int st;
	pid_t p;
	pthread_atfork(prepare, parent, child);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	fflush(stdout);
	p = fork();
	if (p == 0) {
		bump(10);
		_exit(hits == 3010 ? 3 : 4);
	}
	waitpid(p, &st, 0);
	bump(1);
	printf("hits %ld child %d\n", hits, WEXITSTATUS(st));
	return WEXITSTATUS(st) == 3 ? 0 : 1;
}
