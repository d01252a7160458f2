/* SPDX-License-Identifier: MIT */
/* An autoconf program whose configuration header comes inside
   #ifdef HAVE_CONFIG_H, and which defines what that header would have
   (AC_USE_SYSTEM_EXTENSIONS puts _GNU_SOURCE there) before a first
   declaration, its system headers after.  Headers the tool adds must
   come after that group: strchrnul() is a GNU extension. */
/* expect: transformed */
#ifdef HAVE_CONFIG_H
#include "config.h"
#else
#define _GNU_SOURCE 1
#define PACKAGE "tally"
#endif

static const char package[] = PACKAGE;

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 3
#define IT 2000

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static long words, bytes;

static void count(const char *line)
{
	const char *sp = strchrnul(line, ' ');

	pthread_mutex_lock(&tally_lock);
	words++;
	bytes += sp - line;
	pthread_mutex_unlock(&tally_lock);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		count("lorem ipsum");
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	int i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("%s: %ld words, %ld bytes\n", package, words, bytes);
	return words == NT * IT && bytes == 5L * NT * IT ? 0 : 1;
}
