/*
 * Lock pointers given in brace initialisers, each way C allows: the
 * designated elements of an array of argument structures, a compound
 * literal assigned to a local, a static structure at file scope, and
 * initialisers without designators (by position, one through a typedef
 * of an anonymous structure).  Three structures have a member named `lock`:
 * the structure each initialiser fills is read from its declaration or
 * its cast, and each pointer is converted with the one lock it is given.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t hits_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t bytes_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t errs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t drops_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits, bytes, errs, drops;

struct hit_arg {
	pthread_mutex_t *lock;
	long *count;
};

struct byte_arg {
	int size;
	pthread_mutex_t *lock;
	long *count;
};

struct err_arg {
	pthread_mutex_t *lock;
	long *count;
};

typedef struct {
	long *count;
	pthread_mutex_t *lock;
	int every;
} drop_arg;

static struct err_arg err_counter = { .lock = &errs_lock, .count = &errs };

static void *count_hits(void *p)
{
	struct hit_arg *h = p;

	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(h->lock);
		(*h->count)++;
		pthread_mutex_unlock(h->lock);
	}
	return NULL;
}

static void *count_bytes(void *p)
{
	struct byte_arg *b = p;

	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(b->lock);
		*b->count += b->size;
		pthread_mutex_unlock(b->lock);
		if (i % 1000 == 0) {
			pthread_mutex_lock(err_counter.lock);
			(*err_counter.count)++;
			pthread_mutex_unlock(err_counter.lock);
		}
	}
	return NULL;
}

static void *count_drops(void *p)
{
	drop_arg *d = p;

	for (int i = 0; i < 10000; i += d->every) {
		pthread_mutex_lock(d->lock);
		(*d->count)++;
		pthread_mutex_unlock(d->lock);
	}
	return NULL;
}

int main(void)
{
	struct hit_arg ha[2] = {
		{ .lock = &hits_lock, .count = &hits },
		{ .lock = &hits_lock, .count = &hits },
	};
	struct byte_arg ba, bb = { 5, &bytes_lock, &bytes };
	drop_arg da = { &drops, &drops_lock, 10 };
	pthread_t th[5];

	ba = (struct byte_arg){ .size = 3, .lock = &bytes_lock, .count = &bytes };
	pthread_create(&th[0], NULL, count_hits, &ha[0]);
	pthread_create(&th[1], NULL, count_hits, &ha[1]);
	pthread_create(&th[2], NULL, count_bytes, &ba);
	pthread_create(&th[3], NULL, count_drops, &da);
	pthread_create(&th[4], NULL, count_bytes, &bb);
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	printf("hits %ld, bytes %ld, errs %ld, drops %ld\n", hits, bytes, errs,
	       drops);
	return 0;
}
