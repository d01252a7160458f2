/* SPDX-License-Identifier: MIT */
/* Sections that apply an operation chosen at run time through a table
   of function pointers.  Every function whose address is taken with the
   type called is pure; the one that reads thread-local data has another
   type (it is a thread's start routine), so it cannot be behind these
   calls: the sections move. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 500

struct op {
	const char *name;
	long (*apply)(long);
};

static long add3(long v)
{
	return v + 3;
}

static long twice(long v)
{
	return v * 2 % 1000003;
}

static const struct op ops[] = {{"add3", add3}, {"twice", twice}};
static pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
static long acc[2];
static __thread long done;

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		const struct op *o = &ops[(i + id) % 2];

		pthread_mutex_lock(&acc_lock);
		acc[(i + id) % 2] = o->apply(acc[(i + id) % 2]);
		pthread_mutex_unlock(&acc_lock);
		done++;
	}
	return (void *)done;
}

int main(void)
{
	pthread_t t[NT];
	long i, n = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		n += (long)r;
	}
	printf("sections %ld\n", n);
	return n == NT * IT ? 0 : 1;
}
