/* SPDX-License-Identifier: MIT */
/* Initialisers spelt through the project's own object-like macros, the
 * way portability layers name them: a scalar one
 * (`#define MUTEX_INIT PTHREAD_MUTEX_INITIALIZER`) for a plain mutex and a
 * designated brace one for a structure, used by an array of buckets and a
 * single object.  Every use initialises the same mutex, so the macros
 * themselves are rewritten. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define BUCKET_INIT                                                     \
	{                                                               \
		.count = 0, .lock = PTHREAD_MUTEX_INITIALIZER,          \
		.name = "b"                                             \
	}

struct bucket {
	long count;
	pthread_mutex_t lock;
	const char *name;
};

static pthread_mutex_t total_lock = MUTEX_INIT;
static long total;
static struct bucket buckets[4] = { BUCKET_INIT, BUCKET_INIT, BUCKET_INIT,
				    BUCKET_INIT };
static struct bucket spare = BUCKET_INIT;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 2000; i++) {
		struct bucket *b = (i % 5 == 4) ? &spare : &buckets[(i + id) % 4];

		pthread_mutex_lock(&b->lock);
		b->count++;
		pthread_mutex_unlock(&b->lock);
		pthread_mutex_lock(&total_lock);
		total += id + 1;
		pthread_mutex_unlock(&total_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long sum = spare.count;

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	sum = spare.count;
	for (int i = 0; i < 4; i++)
		sum += buckets[i].count;
	printf("buckets %ld spare %ld total %ld name %s\n", sum, spare.count,
	       total, spare.name);
	return sum == 6000 && total == 12000 ? 0 : 1;
}
