/* SPDX-License-Identifier: MIT */
/* liblzma's mythread.h: the condition type is a structure around the
   pthread_cond_t (with the clock it uses), and the wait wrapper passes
   &cond->cond on, so a call of it cannot be renamed to liblock's.  The
   wrapper is rewritten in place instead: its body waits with
   liblock_cond_wait() on the converted field, its mutex parameter
   becomes a liblock_lock_t pointer, and its callers stay as they are
   (it was refused before: "changes its arguments"). */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
typedef pthread_mutex_t mythread_mutex;
typedef struct {
	pthread_cond_t cond;
	int clk_id;
} mythread_cond;
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
static inline void mythread_cond_wait(mythread_cond *cond, mythread_mutex *mutex)
{
	int ret = pthread_cond_wait(&cond->cond, mutex);
	assert(ret == 0);
	(void)ret;
}
static inline void mythread_cond_signal(mythread_cond *cond)
{
	int ret = pthread_cond_signal(&cond->cond);
	assert(ret == 0);
	(void)ret;
}
struct w { mythread_mutex mutex; mythread_cond cond; int state; };
static struct w W;
static void *th(void *a)
{
	struct w *thr = a;
	mythread_mutex_lock(&thr->mutex);
again:
	if (thr->state == 0) {
		mythread_cond_wait(&thr->cond, &thr->mutex);
		goto again;
	}
	mythread_mutex_unlock(&thr->mutex);
	return NULL;
}
int main(void)
{
	pthread_t t;
	pthread_mutex_init(&W.mutex, NULL);
	pthread_cond_init(&W.cond.cond, NULL);
	pthread_create(&t, NULL, th, &W);
	mythread_mutex_lock(&W.mutex);
	W.state = 1;
	mythread_cond_signal(&W.cond);
	mythread_mutex_unlock(&W.mutex);
	pthread_join(t, NULL);
	puts(W.state == 1 ? "woken" : "WRONG");
	return 0;
}
