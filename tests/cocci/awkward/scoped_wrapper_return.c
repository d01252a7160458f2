/* SPDX-License-Identifier: MIT */
/* A block macro over wrappers that take the mutex as a parameter (as
   liblzma's mythread_sync() over mythread_mutex_lock()), whose body
   returns with the mutex locked; the caller then unlocks through the
   wrapper.  The section is held: its lock and unlock, and the caller's
   unlock, become liblock calls on the converted mutex (the wrappers stay
   pthread ones for any mutex that stays POSIX). */
/* expect: held returns with the lock held */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
typedef pthread_mutex_t mythread_mutex;
static inline void mythread_mutex_lock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_lock(mutex);
	assert(ret == 0);
	(void)ret;
}
static inline void mythread_mutex_unlock(mythread_mutex *mutex)
{
	int ret = pthread_mutex_unlock(mutex);
	assert(ret == 0);
	(void)ret;
}
#define mythread_sync(mutex) mythread_sync_helper1(mutex, __LINE__)
#define mythread_sync_helper1(mutex, line) mythread_sync_helper2(mutex, line)
#define mythread_sync_helper2(mutex, line) \
	for (unsigned int mythread_i_ ## line = 0; \
			mythread_i_ ## line \
				? (mythread_mutex_unlock(&(mutex)), 0) \
				: (mythread_mutex_lock(&(mutex)), 1); \
			mythread_i_ ## line = 1) \
		for (unsigned int mythread_j_ ## line = 0; \
				!mythread_j_ ## line; \
				mythread_j_ ## line = 1)
struct w { mythread_mutex mutex; int n; };
static struct w W;
/* 1 with the mutex still locked when the count is full */
static int add(struct w *thr)
{
	mythread_sync(thr->mutex) {
		if (thr->n > 1000)
			return 1;
		thr->n++;
	}
	return 0;
}
static void *th(void *a)
{
	int i;
	for (i = 0; i < 1000; i++)
		if (add(a))
			mythread_mutex_unlock(&((struct w *)a)->mutex);
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	pthread_mutex_init(&W.mutex, NULL);
	pthread_create(&t[0], NULL, th, &W);
	pthread_create(&t[1], NULL, th, &W);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("count %d\n", W.n);
	return W.n == 1001 ? 0 : 1;
}
