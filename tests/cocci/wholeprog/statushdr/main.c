/* SPDX-License-Identifier: MIT */
/* A stack under one lock, its status kept through status.h's macros.
   take()'s section names the status local only through FAIL(), and
   returns it through RETRC: it is delegated, the local travelling in the
   context.  add()'s section also names LIMIT, an enumeration constant of
   add() itself, through TOO_BIG(): its extracted function cannot see it,
   the compiler says so inside status.h's #define, and that section alone
   is held (the whole file was once left unwritten). */
#include <pthread.h>
#include <stdio.h>

#include "status.h"

#define NT 4
#define IT 3000
#define CAP 64

static pthread_mutex_t stack_lock = PTHREAD_MUTEX_INITIALIZER;
static int items[CAP];
static int depth;

static rc_t room(void)
{
	return depth < CAP ? RC_OK : RC_FULL;
}

static rc_t add(int v)
{
	DEFRC;
	enum { LIMIT = 2500 };

	pthread_mutex_lock(&stack_lock);
	if (TOO_BIG(v))
		FAIL(RC_BIG);
	CHK(room());
	items[depth++] = v;
out:
	pthread_mutex_unlock(&stack_lock);
	RETRC;
}

static rc_t take(int *v)
{
	DEFRC;

	pthread_mutex_lock(&stack_lock);
	if (depth == 0)
		FAIL(RC_EMPTY);
	*v = items[--depth];
out:
	pthread_mutex_unlock(&stack_lock);
	RETRC;
}

static long seen[NT][2][4];

static void *worker(void *arg)
{
	long id = (long)arg;
	int i, v;

	for (i = 0; i < IT; i++) {
		seen[id][0][add(i)]++;
		if (i % 2)
			seen[id][1][take(&v)]++;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i, k, put = 0, got = 0, big = 0, calls = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NT; i++) {
		put += seen[i][0][RC_OK];
		got += seen[i][1][RC_OK];
		big += seen[i][0][RC_BIG];
		for (k = 0; k < 4; k++)
			calls += seen[i][0][k] + seen[i][1][k];
	}
	printf("calls %ld big %ld balance %s\n", calls, big,
	       depth == put - got ? "kept" : "lost");
	return depth == put - got ? 0 : 1;
}
