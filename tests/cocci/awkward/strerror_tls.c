/* SPDX-License-Identifier: MIT */
/* expect: held strerror() */
/* A message from strerror() fetched under the lock and kept in a local
 * for logging after the unlock, while another thread's section formats
 * its own message.  glibc (2.32 and later) writes "Unknown error N" into
 * a buffer of the calling thread, which that thread's next strerror()
 * frees: the first thread's message stays valid until it calls strerror()
 * again.  Delegated, both sections would run strerror() on the server
 * thread, whose second call frees the buffer the first thread still
 * points to (the first thread printed the second message, or freed
 * memory).  The section whose result leaves it is held; the one that
 * hands the string straight to snprintf() is delegated. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t turn;
static int last_err = 1000;
static char copied[64];

/* The string used up inside the section, on the thread that made it. */
static void copy_message(int e)
{
	pthread_mutex_lock(&m);
	snprintf(copied, sizeof copied, "%s", strerror(e));
	pthread_mutex_unlock(&m);
}

static void *reporter(void *arg)
{
	const char *msg;
	char kept[64];

	(void)arg;
	pthread_mutex_lock(&m);
	msg = strerror(last_err + 1);
	last_err++;
	pthread_mutex_unlock(&m);
	pthread_barrier_wait(&turn); /* the other thread's section runs */
	pthread_barrier_wait(&turn);
	snprintf(kept, sizeof kept, "%s", msg);
	printf("[%s] [%s]\n", kept, copied);
	return NULL;
}

static void *other(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&turn);
	copy_message(3000);
	pthread_barrier_wait(&turn);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_barrier_init(&turn, NULL, 2);
	pthread_create(&a, NULL, reporter, NULL);
	pthread_create(&b, NULL, other, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_barrier_destroy(&turn);
	return 0;
}
