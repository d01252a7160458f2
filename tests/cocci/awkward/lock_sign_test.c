/*
 * Lock calls whose result is compared with 0 by its sign, as libraries
 * that wrap pthreads in their own portable layer write it (libgit2's
 * `if (git_mutex_lock(&odb->lock) < 0) { git_error_set(...); return -1; }`,
 * where the Windows build's lock returns -1): an object store's backend
 * list and a pack cache, each behind its own mutex.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define store_lock(m) pthread_mutex_lock(m)
#define store_unlock(m) pthread_mutex_unlock(m)

static char last_error[64];

static void set_error(const char *msg)
{
	snprintf(last_error, sizeof last_error, "%s", msg);
}

struct store {
	pthread_mutex_t lock;
	int backends[16];
	int nbackends;
};

struct pack_cache {
	pthread_mutex_t lock;
	long hits, misses;
};

static struct store odb = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };
static struct pack_cache packs = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

static int add_backend(struct store *s, int id)
{
	if (store_lock(&s->lock) < 0) {
		set_error("failed to acquire the odb lock");
		return -1;
	}
	if (s->nbackends == 16) {
		store_unlock(&s->lock);
		set_error("too many backends");
		return -1;
	}
	s->backends[s->nbackends++] = id;
	store_unlock(&s->lock);
	return 0;
}

static int count_lookup(struct pack_cache *c, int found)
{
	int rc = -1;

	if (store_lock(&c->lock) >= 0) {
		if (found)
			c->hits++;
		else
			c->misses++;
		rc = 0;
		store_unlock(&c->lock);
	}
	return rc;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 5; i++)
		add_backend(&odb, (int)(id * 10 + i));
	for (int i = 0; i < 1000; i++)
		if (count_lookup(&packs, i % 3 == 0) < 0)
			return (void *)1;
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	int distinct = 1;

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* which 16 of the 20 get in depends on the threads' order */
	for (int i = 0; i < odb.nbackends; i++)
		for (int j = 0; j < i; j++)
			if (odb.backends[i] == odb.backends[j])
				distinct = 0;
	printf("backends %d distinct %d hits %ld misses %ld error '%s'\n",
	       odb.nbackends, distinct, packs.hits, packs.misses, last_error);
	return odb.nbackends == 16 && strcmp(last_error, "too many backends") == 0
		       ? 0 : 1;
}
