/* SPDX-License-Identifier: MIT */
/* Two locks in one file: a section of one uses a variable-length array
   of the caller (its bound cannot travel: the generated code does not
   compile), the other is ordinary.  The bad section is held, with the
   compiler's message; the other lock is still converted. */
/* expect: transformed */
/* expect: held new compiler diagnostic */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

static pthread_mutex_t vla_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long vla_sum, count;

static long fill(int n)
{
	int a[n];
	int i;

	for (i = 0; i < n; i++)
		a[i] = i;
	pthread_mutex_lock(&vla_lock);
	vla_sum += a[n - 1];
	pthread_mutex_unlock(&vla_lock);
	return a[0];
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
	printf("vla_sum %ld count %ld\n", vla_sum, count);
	return vla_sum == 3L * NT * IT && count == NT * IT ? 0 : 1;
}
