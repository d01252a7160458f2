/* SPDX-License-Identifier: MIT */
/* expect: held sets a thread's own locale with uselocale() */
/* A report thread switches itself to a locale with a comma as decimal
   point (uselocale(), per thread) and formats numbers under the lock;
   the server thread keeps the C locale, so the section stays in place.
   Falls back to checking multibyte width under C.UTF-8 when no such
   locale is installed. */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static char lines[4][48];
static int nlines;

static void record(double v)
{
	pthread_mutex_lock(&out_lock);
	snprintf(lines[nlines % 4], sizeof(lines[0]), "%.2f mb=%d", v,
		 (int)MB_CUR_MAX);
	nlines++;
	pthread_mutex_unlock(&out_lock);
}

static void *reporter(void *arg)
{
	locale_t loc = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
	locale_t old;

	(void)arg;
	if (loc == (locale_t)0)
		return NULL;
	old = uselocale(loc);
	record(1.5);
	uselocale(old);
	freelocale(loc);
	return NULL;
}

int main(void)
{
	pthread_t t;
	int i;

	record(0.25);
	pthread_create(&t, NULL, reporter, NULL);
	pthread_join(t, NULL);
	for (i = 0; i < nlines; i++)
		printf("%s\n", lines[i]);
	return 0;
}
