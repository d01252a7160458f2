/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Sections that note where they are: __LINE__ directly and through the
   program's own trace macro (a macro of a macro), GCC's __builtin_LINE()
   and __builtin_FUNCTION(), with an early exit whose generated code has
   more lines than the original.  The extracted function must give the
   lines of the original file (the numbers below) and the name of the
   function the section was in. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NWORKERS 3
#define ROUNDS 10000
#define WHERE_(l) (l)
#define WHERE() WHERE_(__LINE__)
#define TRACE(t) ((t)->line = WHERE(), (t)->fn = __builtin_FUNCTION())

struct trace {
	int line;
	const char *fn;
};

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static struct trace last;
static int direct, builtin_line, early_line;
static long count;

static int note(int stop)
{
	pthread_mutex_lock(&lk);
	count++;
	if (stop) {
		early_line = __LINE__;
		pthread_mutex_unlock(&lk);
		return stop > 1 ?
		       -2 : -1;
	}
	direct = __LINE__;
	TRACE(&last);
	builtin_line = __builtin_LINE();
	pthread_mutex_unlock(&lk);
	return 0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		note(i % 7 == 0);
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("early=%d direct=%d trace=%d builtin=%d fn=%s count=%ld\n",
	       early_line, direct, last.line, builtin_line, last.fn, count);
	return early_line == 34 && direct == 39 && last.line == 40 &&
	       builtin_line == 41 && strcmp(last.fn, "note") == 0 &&
	       count == (long)NWORKERS * ROUNDS ? 0 : 1;
}
