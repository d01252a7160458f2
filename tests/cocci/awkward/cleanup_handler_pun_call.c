/* SPDX-License-Identifier: MIT */
/* expect: refused 'void *' is converted into a pointer to a mutex */
/* cleanup_handler_field.c, but main() also calls the handler with a
   `void *` that holds the structure's address, which is the address of
   its first member, the lock: that call names no lock the text can
   see, so the lock stays POSIX rather than be unlocked by pthreads. */
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
	{
		void *whole = &info;
		pthread_mutex_lock(&info.pending_lock);
		info.done++;
		mutex_cleanup(whole);
	}
	printf("pending %d done %d\n", info.pending, info.done);
	pthread_mutex_destroy(&info.pending_lock);
	return 0;
}
