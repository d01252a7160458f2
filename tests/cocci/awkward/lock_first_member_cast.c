/* SPDX-License-Identifier: MIT */
/* A reference-counted object whose mutex is its first member: one
   helper locks it through the object's own address cast to a mutex
   pointer, another through &o->mutex.  Converting the field would hand
   pthreads a liblock lock through the cast, so the field stays POSIX,
   with the cast named; the lock of another structure, where no cast
   reaches, still converts. */
/* expect: refused is converted into a pointer to a mutex */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define IT 3000

struct object {
	pthread_mutex_t mutex;
	int refs;
	long uses;
};

struct census {
	long created;
	pthread_mutex_t lock;
};

static struct census census = { 0, PTHREAD_MUTEX_INITIALIZER };

static struct object *object_new(void)
{
	struct object *o = calloc(1, sizeof(*o));

	if (!o)
		abort();
	pthread_mutex_init(&o->mutex, NULL);
	o->refs = 1;
	pthread_mutex_lock(&census.lock);
	census.created++;
	pthread_mutex_unlock(&census.lock);
	return o;
}

static void object_get(struct object *o)
{
	pthread_mutex_lock((pthread_mutex_t *)o);
	o->refs++;
	o->uses++;
	pthread_mutex_unlock((pthread_mutex_t *)o);
}

static int object_put(struct object *o)
{
	int left;

	pthread_mutex_lock(&o->mutex);
	left = --o->refs;
	pthread_mutex_unlock(&o->mutex);
	if (left == 0) {
		pthread_mutex_destroy(&o->mutex);
		free(o);
	}
	return left;
}

static struct object *shared;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++) {
		object_get(shared);
		object_put(shared);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long uses;

	shared = object_new();
	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	uses = shared->uses;
	printf("uses %ld, created %ld, left %d\n", uses, census.created,
	       object_put(shared));
	return 0;
}
