/* SPDX-License-Identifier: MIT */
/* Hand-over-hand between an error-checking mutex `a`, taken before the
   section of `b`, and `b`: the section of `b` releases `a`.  With only
   `b` selected (--locks b), that section must not run on a server
   thread: the server would release a mutex it does not own (EPERM from
   an error-checking mutex, which then stays locked for good).  t_options.sh
   expects it held, and the same output under rcl, posix and mcs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 2000

static pthread_mutex_t a;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long x, y;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++) {
		if (pthread_mutex_lock(&a) != 0)
			abort();
		x++;
		pthread_mutex_lock(&b);
		pthread_mutex_unlock(&a);
		y++;
		pthread_mutex_unlock(&b);
	}
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t at;
	pthread_t t[NT];

	pthread_mutexattr_init(&at);
	pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&a, &at);
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("x %ld y %ld\n", x, y);
	return x == NT * IT && y == NT * IT ? 0 : 1;
}
