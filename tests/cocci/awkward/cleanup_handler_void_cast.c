/* SPDX-License-Identifier: MIT */
/* rsyslog's shape: a cancellation cleanup handler takes the mutex as a
   `void *` and unlocks it through a cast to the mutex type; here also
   called directly to end a section.  Only a parameter unlocked without
   the cast was read as a wrapper: the lock stayed POSIX ("used outside").
   The consumer's section runs in place on the lock word, the others are
   delegated. */
/* expect: held unlocked by the cleanup handler pushed at line */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
static int items, done;

static void unlock_cleanup(void *arg)
{
	pthread_mutex_unlock((pthread_mutex_t *)arg);
}

static void *consumer(void *unused)
{
	long got = 0;
	(void)unused;
	for (;;) {
		pthread_mutex_lock(&qlock);
		pthread_cleanup_push(unlock_cleanup, &qlock);
		while (items == 0 && !done)
			pthread_cond_wait(&qcond, &qlock);
		if (items == 0 && done)
			pthread_exit((void *)got);	/* the handler unlocks */
		items--;
		got++;
		pthread_cleanup_pop(1);
	}
	return NULL;
}

static void add(void)
{
	pthread_mutex_lock(&qlock);
	items++;
	pthread_cond_signal(&qcond);
	unlock_cleanup(&qlock);
}

int main(void)
{
	pthread_t c;
	void *r;
	pthread_create(&c, NULL, consumer, NULL);
	for (int i = 0; i < 50000; i++)
		add();
	pthread_mutex_lock(&qlock);
	done = 1;
	pthread_cond_broadcast(&qcond);
	pthread_mutex_unlock(&qlock);
	pthread_join(c, &r);
	printf("%ld\n", (long)r);
	return (long)r == 50000 ? 0 : 1;
}
