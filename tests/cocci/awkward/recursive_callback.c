/* SPDX-License-Identifier: MIT */
/* expect: held a lock call in a function called from the section */
/* An event registry guarded by a recursive mutex: dispatch() calls the
   handlers with the mutex held, and a handler registers another one,
   taking the mutex again.  The handler is reached through a function
   pointer only.  The mutex stays recursive (a liblock lock of that
   type): dispatch()'s section is held, and the handler's registration,
   run by the thread that holds the mutex, runs in place. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

typedef void (*handler_fn)(int);

static pthread_mutex_t reg_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static handler_fn handlers[8];
static int nhandlers;
static long fired;

static void on_any(int ev);

static void reg_add(handler_fn h)
{
	pthread_mutex_lock(&reg_lock);
	if (nhandlers < 8)
		handlers[nhandlers++] = h;
	pthread_mutex_unlock(&reg_lock);
}

static void on_first(int ev)
{
	if (ev == 1)
		reg_add(on_any);
}

static void on_any(int ev)
{
	fired += ev;
}

static void dispatch(int ev)
{
	int i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < nhandlers; i++)
		handlers[i](ev);
	pthread_mutex_unlock(&reg_lock);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++)
		dispatch(2);
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	int i;

	reg_add(on_first);
	dispatch(1);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("handlers %d fired %ld\n", nhandlers, fired);
	return nhandlers == 2 && fired == 4001 ? 0 : 1;
}
