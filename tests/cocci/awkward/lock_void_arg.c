/* SPDX-License-Identifier: MIT */
/* A thread pool's jobs carry their lock as the `void *` a callback is
   given: each job structure begins with its mutex, and the callback
   locks what it was handed.  A pointer that is not a mutex's becomes
   one there, so every mutex field that begins a structure stays POSIX;
   the totals' lock, not first in its structure, still converts. */
/* expect: refused 'void *' is converted into a pointer to a mutex */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 4000

struct job {
	pthread_mutex_t guard;
	long done;
};

struct totals {
	long calls;
	pthread_mutex_t lock;
};

static struct job jobs[2];
static struct totals totals = { 0, PTHREAD_MUTEX_INITIALIZER };

static void run_locked(void *lock, long *counter)
{
	pthread_mutex_lock(lock);
	(*counter)++;
	pthread_mutex_unlock(lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		struct job *j = &jobs[(i + id) & 1];

		run_locked(j, &j->done);
		pthread_mutex_lock(&j->guard);
		j->done++;
		pthread_mutex_unlock(&j->guard);
		pthread_mutex_lock(&totals.lock);
		totals.calls += 2;
		pthread_mutex_unlock(&totals.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (int i = 0; i < 2; i++)
		pthread_mutex_init(&jobs[i].guard, NULL);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld %ld\n", jobs[0].done, jobs[1].done, totals.calls);
	for (int i = 0; i < 2; i++)
		pthread_mutex_destroy(&jobs[i].guard);
	return 0;
}
