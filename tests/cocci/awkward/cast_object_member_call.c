/* SPDX-License-Identifier: MIT */
/* wget2's vector: the comparison is called through a member of a
   structure whose pointer is cast, ((wget_vector_t *)v)->cmp(a, b), from
   a qsort_r() in the section.  The cast is of the object, not of the
   function pointer: only functions of the member's type may be behind it
   (not the fatal-signal handler that re-raises, which held the section:
   "thread-dependent data ... raise()"). */
/* expect: transformed */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*wget_vector_compare_t)(const void *elem1, const void *elem2);
typedef struct { wget_vector_compare_t cmp; int entry[8]; int cur; } wget_vector_t;

static void fatal_signal_handler(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static int _compare(const void *p1, const void *p2, void *v)
{
	return ((wget_vector_t *)v)->cmp(p1, p2);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static wget_vector_t vec = { cmp_int, { 0 }, 0 };

static void *worker(void *arg)
{
	int base = *(int *)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&mutex);
		if (vec.cur < 8)
			vec.entry[vec.cur++] = base + i;
		qsort_r(vec.entry, vec.cur, sizeof(int), _compare, &vec);
		pthread_mutex_unlock(&mutex);
	}
	return NULL;
}

int main(void)
{
	struct sigaction action;
	pthread_t t[4];
	int base[4] = { 40, 30, 20, 10 };

	action.sa_handler = &fatal_signal_handler;
	action.sa_flags = SA_NODEFER;
	sigemptyset(&action.sa_mask);
	sigaction(SIGUSR2, &action, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &base[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i < vec.cur; i++)
		if (vec.entry[i - 1] > vec.entry[i])
			return 1;
	printf("cur=%d sorted\n", vec.cur);
	return 0;
}
