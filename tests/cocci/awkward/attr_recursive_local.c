/* SPDX-License-Identifier: MIT */
/* Two functions each make a mutex with a local attribute object named
   `attr`: one plain, one recursive, whose owner takes it again (a
   helper that locks, called with the lock held).  Each attribute is
   read in its own function.  Both are converted: the recursive one keeps
   its type (liblock_mutexattr_flags(&attr) in its liblock attribute),
   and the section that calls the helper with it held stays in its
   thread. */
/* expect: held a lock call in a function called from the section */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define ROUNDS 400

static pthread_mutex_t stats_lock, tree_lock;
static long hits, nodes;

static void stats_setup(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_DEFAULT);
	pthread_mutex_init(&stats_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

static void tree_setup(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&tree_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

static void tree_count(void)
{
	pthread_mutex_lock(&tree_lock);
	nodes++;
	pthread_mutex_unlock(&tree_lock);
}

static void *worker(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&tree_lock);
		tree_count(); /* again, by its owner */
		pthread_mutex_unlock(&tree_lock);
		pthread_mutex_lock(&stats_lock);
		hits++;
		pthread_mutex_unlock(&stats_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS];
	long k;

	stats_setup();
	tree_setup();
	for (k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, NULL);
	for (k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	printf("hits %ld nodes %ld\n", hits, nodes);
	return hits == WORKERS * ROUNDS && nodes == hits ? 0 : 1;
}
