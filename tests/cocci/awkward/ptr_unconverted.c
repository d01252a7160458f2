/* SPDX-License-Identifier: MIT */
/* A global pointer to the lock in use that holds either a mutex
   allocated on the heap or the address of a recursive mutex: a section
   through the pointer cannot be checked as a recursive mutex's are, so
   the pointer, and the locks it may hold, stay POSIX, with the
   assignment named. */
/* expect: refused pointer 'active' is assigned the address of rec_lock */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 2000

static pthread_mutex_t rec_lock;
static pthread_mutex_t *active;
static long total;

static void choose(int recursive)
{
	if (recursive) {
		active = &rec_lock;
	} else {
		active = malloc(sizeof(pthread_mutex_t));
		pthread_mutex_init(active, NULL);
	}
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(active);
		total++;
		pthread_mutex_unlock(active);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t attr;
	pthread_t t[NT];
	long i;

	(void)argv;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rec_lock, &attr);
	choose(argc > 1);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("total %ld\n", total);
	return total == NT * IT ? 0 : 1;
}
