/* SPDX-License-Identifier: MIT */
/* One lock wrapper used with two mutexes: a plain one, and a recursive
   one that other processes may share (initialised with attributes: it
   stays POSIX).  The plain one is
   still converted; the wrapper keeps serving the recursive one. */
/* expect: refused other processes may take it */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 400

static pthread_mutex_t plain_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tree_mu;
static long plain_count, tree_count;

static void must_lock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_lock(m);

	if (rc != 0) {
		fprintf(stderr, "lock: %d\n", rc);
		abort();
	}
}

static void must_unlock(pthread_mutex_t *m)
{
	int rc = pthread_mutex_unlock(m);

	if (rc != 0) {
		fprintf(stderr, "unlock: %d\n", rc);
		abort();
	}
}

static void tree_visit(int depth)
{
	must_lock(&tree_mu);
	tree_count++;
	if (depth > 0)
		tree_visit(depth - 1);
	must_unlock(&tree_mu);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		must_lock(&plain_mu);
		plain_count += 2;
		must_unlock(&plain_mu);
		tree_visit(2);
	}
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t attr;
	pthread_t t[NT];
	int i;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&tree_mu, &attr);
	pthread_mutexattr_destroy(&attr);
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("plain %ld tree %ld\n", plain_count, tree_count);
	return plain_count == 2 * NT * IT && tree_count == 3 * NT * IT ? 0 : 1;
}
