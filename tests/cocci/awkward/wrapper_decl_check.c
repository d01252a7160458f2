/* SPDX-License-Identifier: MIT */
/* A project mutex type (a struct around the pthread mutex) behind lock
 * and unlock functions that assert on their argument, declare the
 * result first, assign it from the call, and check it with a branch
 * hint and a fatal-error macro of their own, the way Tor's
 * compat_mutex_pthreads.c does.  Every mutex here is a default
 * (non-recursive) one. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MY_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define my_die(msg)                                                           \
	do {                                                                  \
		fprintf(stderr, "fatal: %s\n", (msg));                        \
		abort();                                                      \
	} while (0)

typedef struct my_mutex {
	pthread_mutex_t mutex;
} my_mutex_t;

static void my_mutex_acquire(my_mutex_t *m)
{
	int err;
	assert(m);
	err = pthread_mutex_lock(&m->mutex);
	if (MY_UNLIKELY(err)) {
		my_die("cannot lock a mutex");
	}
}

static void my_mutex_release(my_mutex_t *m)
{
	int err;
	assert(m);
	err = pthread_mutex_unlock(&m->mutex);
	if (MY_UNLIKELY(err)) {
		my_die("cannot unlock a mutex");
	}
}

#define NT 4
#define IT 1000

static my_mutex_t jobs_lock = {PTHREAD_MUTEX_INITIALIZER};
static long jobs_done, jobs_sum;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		my_mutex_acquire(&jobs_lock);
		jobs_done++;
		jobs_sum += id * i;
		my_mutex_release(&jobs_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("done=%ld sum=%ld\n", jobs_done, jobs_sum);
	return jobs_done == NT * IT ? 0 : 1;
}
