/* SPDX-License-Identifier: MIT */
/* memcached's memcached-debug is built with --coverage: GCC refuses a
 * function that starts on a line after the one it ends on
 * (-Wcoverage-invalid-line-number, an error with -Werror).  A section
 * that reads its own line numbers (assert(), __LINE__) keeps them in
 * the extracted function, below its head: the head is numbered before
 * them. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long head, moved;

/* a few lines of comment so that the extracted function lands well
 * below its section's lines
 *
 *
 *
 */
static void push(long v)
{
	pthread_mutex_lock(&m);
	assert(v >= 0);
	head += v;
	if (__LINE__ != 26)
		moved++;
	pthread_mutex_unlock(&m);
}

static void *w(void *a)
{
	(void)a;
	for (int i = 0; i < 10000; i++)
		push(i & 3);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, w, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld moved %ld\n", head, moved);
	return 0;
}
