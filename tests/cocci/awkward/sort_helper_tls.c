/* SPDX-License-Identifier: MIT */
/* The section sorts a shared table through the program's own helper,
   which takes the comparison function as a parameter and hands it to
   qsort(), and keeps a table of the comparison functions it knows.  The
   one used counts its calls in a thread-local counter that the thread
   reports afterwards.  The C library calls back through the parameter:
   on the server thread the count would go to the server's copy.  The
   parameter is not called in the helper, and the function's address is
   not taken in the section: only what the parameter is handed to says
   that it runs there.  Held. */
/* expect: held thread-local variable 'ncmp' in by_value() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 200
#define LEN 8

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int table[LEN];
static __thread long ncmp;
static long total_cmp;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	ncmp++;
	return (x > y) - (x < y);
}

typedef int cmp_fn(const void *, const void *);

static void sort_ints(int *v, size_t n, cmp_fn *cmp)
{
	qsort(v, n, sizeof(v[0]), cmp);
}

static cmp_fn *const orders[] = {by_value};

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&table_lock);
		table[(i + id) % LEN] = (int)((i * 7 + id) % 13);
		sort_ints(table, LEN, orders[0]);
		pthread_mutex_unlock(&table_lock);
	}
	pthread_mutex_lock(&total_lock);
	total_cmp += ncmp > 0;
	pthread_mutex_unlock(&total_lock);
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
	for (i = 1; i < LEN; i++)
		if (table[i - 1] > table[i])
			return 1;
	printf("threads that compared: %ld\n", total_cmp);
	return total_cmp == NT ? 0 : 1;
}
