/* SPDX-License-Identifier: MIT */
/* Two locks in one file: a section of one uses a local whose type the
   function declares itself (a block-scope typedef: the extracted
   function, outside it, cannot name it, and its code does not compile),
   the other is ordinary.  The bad section is held, with the compiler's
   message; the other lock is still converted. */
/* expect: transformed */
/* expect: held new compiler diagnostic */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

static pthread_mutex_t span_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long span_sum, count;

static long fill(int n)
{
	typedef struct {
		long lo, hi;
	} span_t;
	span_t s = { n, 2L * n - 1 };

	pthread_mutex_lock(&span_lock);
	span_sum += s.hi - s.lo;
	pthread_mutex_unlock(&span_lock);
	return s.lo;
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		fill(4);
		pthread_mutex_lock(&count_lock);
		count++;
		pthread_mutex_unlock(&count_lock);
	}
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
	printf("span_sum %ld count %ld\n", span_sum, count);
	return span_sum == 3L * NT * IT && count == NT * IT ? 0 : 1;
}
