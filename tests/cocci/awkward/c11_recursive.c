/* SPDX-License-Identifier: MIT */
/* expect: held mtx_lock() (a C11 mutex's owner is a thread) */
/* expect: refused mtx_lock() takes a C11 mutex (mtx_t) */
/* A C11 recursive mutex (mtx_init(&api, mtx_plain | mtx_recursive))
 * held by the caller around a pthread mutex section, and taken again by
 * a helper that the section calls (re-entrant API lock).
 * The defect it guards against: the tool holds a section whose calls reach a lock of a
 * recursive or error-checking *pthread* mutex (owner matters), but does
 * not know C11's mtx_t: the section is delegated, and under
 * LIBLOCK_LOCK=rcl the server thread's mtx_lock(&api) waits for the
 * client thread, which waits for the server: the program hangs
 * (timeout, exit 124).  posix and mcs are fine. */
#include <pthread.h>
#include <stdio.h>
#include <threads.h>

static mtx_t api;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;
static long calls, counted;

static void note(void)
{
	mtx_lock(&api);
	calls++;
	mtx_unlock(&api);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		mtx_lock(&api);
		pthread_mutex_lock(&stats);
		counted++;
		note();
		pthread_mutex_unlock(&stats);
		mtx_unlock(&api);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	mtx_init(&api, mtx_plain | mtx_recursive);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("calls %ld counted %ld\n", calls, counted);
	return calls == 2000 ? 0 : 1;
}
