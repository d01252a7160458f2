/* SPDX-License-Identifier: MIT */
/* The mutex type spelled through the library's own typedef, as libuv's
   uv.h does (typedef pthread_mutex_t uv_mutex_t): a work queue whose
   lock is a uv_mutex_t-style name.  The typedef is only another name for
   pthread_mutex_t; the lock is used by lock, unlock and init calls
   only. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

typedef pthread_mutex_t q_mutex_t;

struct work_queue {
	q_mutex_t mutex;
	long submitted;
	long completed;
};

static struct work_queue wq;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&wq.mutex);
		wq.submitted++;
		wq.completed += 2;
		pthread_mutex_unlock(&wq.mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	if (pthread_mutex_init(&wq.mutex, NULL))
		return 2;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("submitted %ld completed %ld\n", wq.submitted, wq.completed);
	return wq.submitted == NT * IT && wq.completed == 2 * NT * IT ? 0 : 1;
}
