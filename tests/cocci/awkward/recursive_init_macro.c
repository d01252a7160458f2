/* SPDX-License-Identifier: MIT */
/* A list module names its static initialiser through a macro of its own
   that expands to glibc's recursive one; its remove-all function takes
   the lock and calls remove-one, which takes it again.  The macro's body
   becomes the recursive liblock initialiser. */
/* expect: held takes or releases list_lock itself */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define LIST_LOCK_INIT PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define ITEMS 64

static pthread_mutex_t list_lock = LIST_LOCK_INIT;
static int items[ITEMS];
static int count;
static long removed;

static void list_add(int v)
{
	pthread_mutex_lock(&list_lock);
	if (count < ITEMS)
		items[count++] = v;
	pthread_mutex_unlock(&list_lock);
}

static int list_remove_one(void)
{
	int v = -1;

	pthread_mutex_lock(&list_lock);
	if (count > 0) {
		v = items[--count];
		removed++;
	}
	pthread_mutex_unlock(&list_lock);
	return v;
}

static void list_clear(void)
{
	pthread_mutex_lock(&list_lock);
	while (count > 0)
		list_remove_one();
	pthread_mutex_unlock(&list_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int round = 0; round < 2000; round++) {
		list_add((int)id);
		if (round % 16 == 15)
			list_clear();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	list_clear();
	printf("removed %ld left %d\n", removed, count);
	return 0;
}
