/* SPDX-License-Identifier: MIT */
/* Objects with a mutex that are freed without pthread_mutex_destroy():
   glibc's mutex needs none, but a liblock lock holds memory that only
   liblock_destroy() frees, so every job freed leaked it (hundreds of MB
   for a server's per-request objects).  The job's lock stays POSIX.  The
   registry's lock is freed only on its constructor's error path, before
   it is initialised, and its object lives to the end: it is converted. */
/* expect: refused initialised through a pointer at */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define JOBS 20000

struct job {
	pthread_mutex_t mu;
	int state;
};

struct registry {
	pthread_mutex_t lock;
	long done;
	long *slots;
};

static struct registry *reg;

static struct registry *registry_new(size_t n)
{
	struct registry *r = malloc(sizeof(*r));

	if (r == NULL)
		return NULL;
	r->slots = calloc(n, sizeof(*r->slots));
	if (r->slots == NULL) {
		free(r);
		return NULL;
	}
	r->done = 0;
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;

	for (int i = 0; i < JOBS; i++) {
		struct job *j = malloc(sizeof(*j));

		if (j == NULL)
			abort();
		pthread_mutex_init(&j->mu, NULL);
		pthread_mutex_lock(&j->mu);
		j->state = i & 7;
		sum += j->state;
		pthread_mutex_unlock(&j->mu);
		free(j);
	}
	pthread_mutex_lock(&reg->lock);
	reg->done += sum;
	reg->slots[id] = sum;
	pthread_mutex_unlock(&reg->lock);
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	reg = registry_new(NT);
	if (reg == NULL)
		return 1;
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("done %ld first %ld\n", reg->done, reg->slots[0]);
	return 0;
}
