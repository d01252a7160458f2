/* SPDX-License-Identifier: MIT */
/* assert() in the section: a failed assertion reports the function and
   the expression of the original code.  The program catches the report
   (glibc's __assert_fail) to check it. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long level;

void __assert_fail(const char *expr, const char *file, unsigned int line,
		   const char *fn)
{
	const char *b = strrchr(file, '/');

	(void)line;
	printf("assert in %s (%s): %s\n", fn, b ? b + 1 : file, expr);
	fflush(stdout);
	exit(strcmp(fn, "fill") == 0 && strcmp(expr, "level <= cap") == 0 ? 0 : 4);
}

static void fill(long cap)
{
	pthread_mutex_lock(&m);
	level++;
	assert(level <= cap);
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		fill(NT * IT);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("level %ld\n", level);
	if (level != NT * IT)
		return 1;
	fill(0); /* fails: prints the report, exits 0 when it names fill */
	return 1;
}
