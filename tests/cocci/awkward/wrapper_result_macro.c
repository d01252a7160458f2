/* SPDX-License-Identifier: MIT */
/* A portability layer in the style of a directory server's threads
   module: every pthread call is wrapped in a function on its parameter
   whose body returns the call's result through a macro that maps it to
   an error number (ERRVAL() is `(val)` for pthreads, which already
   returns one, and `((val) < 0 ? errno : 0)` for the old draft-4
   threads).  The text shows a call of ERRVAL(); the compiler's one call
   is pthread's, and the wrappers are lock and unlock functions.  The
   init wrapper passes an attribute macro that is NULL in this build:
   its call sites become liblock's init with NULL. */
/* expect: transformed */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#ifndef DIR_PTHREADS
#define DIR_PTHREADS 10 /* the POSIX version of the threads found */
#endif

#if DIR_PTHREADS < 6
#define DIR_MUTEXATTR_DEFAULT pthread_mutexattr_default
#else
#define DIR_MUTEXATTR_DEFAULT NULL
#endif

#if DIR_PTHREADS < 7
#define ERRVAL(val) ((val) < 0 ? errno : 0)
#else
#define ERRVAL(val) (val)
#endif

#define NT 4
#define IT 3000

typedef pthread_mutex_t dir_mutex_t;

int dir_mutex_init(dir_mutex_t *mutex)
{
	return ERRVAL(pthread_mutex_init(mutex, DIR_MUTEXATTR_DEFAULT));
}

int dir_mutex_lock(dir_mutex_t *mutex)
{
	return ERRVAL(pthread_mutex_lock(mutex));
}

int dir_mutex_unlock(dir_mutex_t *mutex)
{
	return ERRVAL(pthread_mutex_unlock(mutex));
}

struct conn_table {
	dir_mutex_t mutex;
	long opened, closed;
};

static struct conn_table conns;
static dir_mutex_t op_mutex;
static unsigned long op_next;

static unsigned long op_id(void)
{
	unsigned long id;

	dir_mutex_lock(&op_mutex);
	id = ++op_next;
	dir_mutex_unlock(&op_mutex);
	return id;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		op_id();
		dir_mutex_lock(&conns.mutex);
		conns.opened++;
		if (i % 3 == 0)
			conns.closed++;
		dir_mutex_unlock(&conns.mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	if (dir_mutex_init(&conns.mutex) || dir_mutex_init(&op_mutex))
		return 2;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("ops %lu, opened %ld, closed %ld\n", op_next, conns.opened,
	       conns.closed);
	return op_next == NT * IT ? 0 : 1;
}
