/* SPDX-License-Identifier: MIT */
/* expect: held pthread_exit() in bailout() */
/* A worker that fails ends the process from the main thread and itself
   with pthread_exit(), inside the section (lbzip2's bailout(), reached
   from its scheduler's section).  The other workers wait for the lock
   that will never be released, as POSIX waiters do, until the main
   thread, woken by the failure, prints and ends the process.  The
   section is held; its lock and the other sections still move. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#define NWORKERS 3

static pthread_mutex_t sched_mu = PTHREAD_MUTEX_INITIALIZER;
static sem_t failed;
static long done;
static long last_by_failer;

static void bailout(void)
{
	sem_post(&failed);
	pthread_exit(NULL);
}

static void failf(const char *what)
{
	if (what[0] == '!')
		bailout();
}

static void *worker(void *arg)
{
	long me = (long)arg;

	for (long i = 0;; i++) {
		pthread_mutex_lock(&sched_mu);
		done++;
		if (me == 1 && done >= 3000) {
			last_by_failer = done;
			failf("!bad block");
		}
		pthread_mutex_unlock(&sched_mu);
		if ((i & 63) == 0)
			usleep(1);
	}
	return NULL;
}

static long count_done(void)
{
	long n;

	pthread_mutex_lock(&sched_mu);
	n = done;
	pthread_mutex_unlock(&sched_mu);
	return n;
}

int main(void)
{
	pthread_t t[NWORKERS];

	sem_init(&failed, 0, 0);
	if (count_done() != 0)
		return 1;
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	while (sem_wait(&failed) != 0)
		;
	pthread_join(t[1], NULL); /* the failer is gone */
	usleep(20000); /* the others are waiting for the lock by now */
	/* the failer holds the lock for ever: nobody writes done again */
	printf("failed at %s\n", last_by_failer >= 3000 ? "3000 or later" :
	       "too early");
	fflush(stdout);
	_exit(0);
}
