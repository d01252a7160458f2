/* SPDX-License-Identifier: MIT */
/* Cancellation-safe sections, as daemons that cancel their threads write
   them (multipath-tools, autofs): the lock is taken, then an unlocking
   cleanup handler is pushed, and pthread_cleanup_pop(1) releases it at
   the end -- or the thread's cancellation does, in the middle.  The
   handler is the program's own unlock wrapper, or pthread_mutex_unlock
   cast to a handler.  `&m` passed to pthread_cleanup_push() kept the
   lock POSIX ("used outside lock/unlock calls").  Here one thread is
   cancelled while it holds the lock, sleeping in its section: the
   others must still get the lock. */
/* expect: held unlocked by the cleanup handler pushed at line */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long rows;

static void release_table(void *arg)
{
	pthread_mutex_unlock(arg);
}

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&table_lock);
		pthread_cleanup_push(release_table, &table_lock);
		rows++;
		pthread_cleanup_pop(1);
	}
	return NULL;
}

static void *caster(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		pthread_cleanup_push((void (*)(void *))pthread_mutex_unlock,
				     &table_lock);
		pthread_mutex_lock(&table_lock);
		rows += 2;
		pthread_cleanup_pop(1);
	}
	return NULL;
}

#ifndef __SANITIZE_THREAD__
static atomic_int victim_inside;

static void *victim(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&table_lock);
	pthread_cleanup_push(release_table, &table_lock);
	rows += 1000;
	atomic_store(&victim_inside, 1);
	for (;;)
		usleep(1000); /* a cancellation point, the lock held */
	pthread_cleanup_pop(1);
	return NULL;
}
#endif

int main(void)
{
	pthread_t v, t[4];
	void *res;

#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer does not see the unlock that a cancelled thread's
	   cleanup handler makes (it then reports a double lock): no thread
	   is cancelled in that build */
	(void)v;
	rows += 1000;
	res = PTHREAD_CANCELED;
#else
	pthread_create(&v, NULL, victim, NULL);
	while (!atomic_load(&victim_inside))
		usleep(1000);
	pthread_cancel(v);
	pthread_join(v, &res);
#endif
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, i % 2 ? caster : adder, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("victim %s, rows %ld\n",
	       res == PTHREAD_CANCELED ? "cancelled" : "NOT cancelled", rows);
	return res == PTHREAD_CANCELED && rows == 1000 + 2 * 20000 + 2 * 40000
		       ? 0
		       : 1;
}
