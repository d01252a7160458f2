/* SPDX-License-Identifier: MIT */
/* A resolver-style locking header: every pthread call goes through one
   checking macro that stores the result in a local and logs a failure
   (stringifying the call), and the lock macros are that checker around
   the call.  Initialisation keeps its check (the macro then checks
   liblock_init()'s result); lock, unlock and destroy give 0 on a correct
   program, so they are the calls themselves.  A request counter is
   updated by workers, and a ready flag is waited for with a condition. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void report_error(const char *format, ...)
{
	(void)format;
	fputs("lock failure\n", stderr);
}

#define CHECK_LOCK(call)                                                      \
	do {                                                                  \
		int check_lock_err;                                           \
		if ((check_lock_err = (call)) != 0)                           \
			report_error("%s:%d: " #call ": %s", __FILE__,        \
				     __LINE__, strerror(check_lock_err));     \
	} while (0)

typedef pthread_mutex_t basic_lock_type;
#define basic_lock_init(lk) CHECK_LOCK(pthread_mutex_init(lk, NULL))
#define basic_lock_destroy(lk) CHECK_LOCK(pthread_mutex_destroy(lk))
#define basic_lock_take(lk) CHECK_LOCK(pthread_mutex_lock(lk))
#define basic_lock_drop(lk) CHECK_LOCK(pthread_mutex_unlock(lk))

#define WORKERS 4
#define ROUNDS 5000

struct stats {
	basic_lock_type lock;
	pthread_cond_t ready_cv;
	int ready;
	long requests;
	long bytes;
};

static struct stats st;

static void *worker(void *arg)
{
	long id = (long)arg;

	basic_lock_take(&st.lock);
	while (!st.ready)
		pthread_cond_wait(&st.ready_cv, &st.lock);
	basic_lock_drop(&st.lock);
	for (long i = 0; i < ROUNDS; i++) {
		basic_lock_take(&st.lock);
		st.requests++;
		st.bytes += id + i % 7;
		basic_lock_drop(&st.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];

	basic_lock_init(&st.lock);
	pthread_cond_init(&st.ready_cv, NULL);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	basic_lock_take(&st.lock);
	st.ready = 1;
	pthread_cond_broadcast(&st.ready_cv);
	basic_lock_drop(&st.lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("requests %ld bytes %ld\n", st.requests, st.bytes);
	pthread_cond_destroy(&st.ready_cv);
	basic_lock_destroy(&st.lock);
	return 0;
}
