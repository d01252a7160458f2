/* SPDX-License-Identifier: MIT */
/* expect: held unlocked by the cleanup handler pushed at line */
/* tgt's worker shape: a generic handler, `mutex_cleanup(void *mutex)`,
   unlocks whatever mutex it is pushed with, here a structure's field
   that is its first member.  The handler's conversion of its `void *`
   was taken to reach every structure that begins with a mutex, so the
   lock stayed POSIX ("'void *' is converted into a pointer to a mutex");
   every push and call names its lock (`&info->pending_lock`), so the
   section that the pop ends is held and the other delegated.  (Found by
   probing with tgt's shapes.) */
#include <pthread.h>
#include <stdio.h>

struct bs_thread_info { pthread_mutex_t pending_lock; int pending; int done; };

/* Unlock mutex even if thread is cancelled */
static void mutex_cleanup(void *mutex)
{
	pthread_mutex_unlock(mutex);
}

static void *bs_thread_worker_fn(void *arg)
{
	struct bs_thread_info *info = arg;
	int i;

	for (i = 0; i < 100000; i++) {
		pthread_mutex_lock(&info->pending_lock);
		pthread_cleanup_push(mutex_cleanup, &info->pending_lock);
		info->pending++;
		pthread_cleanup_pop(1); /* Unlock pending_lock mutex */

		pthread_mutex_lock(&info->pending_lock);
		info->done++;
		pthread_mutex_unlock(&info->pending_lock);
	}
	return NULL;
}

int main(void)
{
	struct bs_thread_info info = { .pending = 0 };
	pthread_t t[4];
	int i;

	pthread_mutex_init(&info.pending_lock, NULL);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, bs_thread_worker_fn, &info);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("pending %d done %d\n", info.pending, info.done);
	pthread_mutex_destroy(&info.pending_lock);
	return 0;
}
