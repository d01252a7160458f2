/* SPDX-License-Identifier: MIT */
/* A condition type that is a structure around the pthread condition,
 * with a wait wrapper passing &w->cv on, as in cond_clock_wrap.c; but
 * one wait through the wrapper is written inside a macro of the
 * program, with a mutex of its own that the macro names.  Converting the
 * condition field would make the wrapper wait with liblock, and that
 * macro would still hand it a pthread mutex: the condition field, and
 * every mutex waited with through the wrapper, stay POSIX. */
/* expect: refused where the tool does not read the call */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

typedef struct {
	pthread_cond_t cv;
	int spare;
} waitq;

static inline void waitq_wait(waitq *w, pthread_mutex_t *m)
{
	int rc = pthread_cond_wait(&w->cv, m);
	assert(rc == 0);
	(void)rc;
}

static inline void waitq_wake(waitq *w)
{
	int rc = pthread_cond_broadcast(&w->cv);
	assert(rc == 0);
	(void)rc;
}

static pthread_mutex_t jobs_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t flag_mutex = PTHREAD_MUTEX_INITIALIZER;
static waitq jobs_q, flag_q;
static int jobs, flag;

#define WAIT_FOR_FLAG() waitq_wait(&flag_q, &flag_mutex)

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&flag_mutex);
	while (!flag)
		WAIT_FOR_FLAG();
	pthread_mutex_unlock(&flag_mutex);

	pthread_mutex_lock(&jobs_mutex);
	while (jobs == 0)
		waitq_wait(&jobs_q, &jobs_mutex);
	jobs--;
	pthread_mutex_unlock(&jobs_mutex);
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	pthread_cond_init(&jobs_q.cv, NULL);
	pthread_cond_init(&flag_q.cv, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_mutex_lock(&flag_mutex);
	flag = 1;
	waitq_wake(&flag_q);
	pthread_mutex_unlock(&flag_mutex);
	pthread_mutex_lock(&jobs_mutex);
	jobs = 4;
	waitq_wake(&jobs_q);
	pthread_mutex_unlock(&jobs_mutex);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("jobs left %d\n", jobs);
	return jobs == 0 ? 0 : 1;
}
