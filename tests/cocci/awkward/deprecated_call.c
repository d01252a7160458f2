/*
 * A section that frees a key through a function its library marks
 * deprecated, as OpenSSL 3 marks RSA_free() and EC_KEY_free() and as
 * programs keep calling them (h2o's neverbleed daemon).  The warning is
 * the input's own; the extracted section calls the same function, once,
 * from a line that now reads the slot's index (a local whose address the
 * request parser takes) through a pointer.  The pragma keeps it a warning
 * under -Werror, as a build without -Werror would see it.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic warning "-Wdeprecated-declarations"

struct key {
	int bits;
};

__attribute__((deprecated("use key_release()")))
static void key_free(struct key *k)
{
	free(k);
}

#define NSLOTS 8

static struct {
	pthread_mutex_t lock;
	struct key *slots[NSLOTS];
	int freed;
} keys = { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0 };

static int read_index(const char *req, int *idx)
{
	return sscanf(req, "drop %d", idx) == 1 && *idx >= 0 && *idx < NSLOTS;
}

static void drop_key(const char *req)
{
	int idx;

	if (!read_index(req, &idx))
		return;
	pthread_mutex_lock(&keys.lock);
	if (keys.slots[idx] != NULL) {
		key_free(keys.slots[idx]);
		keys.slots[idx] = NULL;
		keys.freed++;
	}
	pthread_mutex_unlock(&keys.lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char req[32];

	for (int i = 0; i < NSLOTS; i++)
		if (i % 2 == id % 2) {
			snprintf(req, sizeof req, "drop %d", i);
			drop_key(req);
		}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < NSLOTS; i++) {
		keys.slots[i] = malloc(sizeof(struct key));
		keys.slots[i]->bits = 2048;
	}
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("freed %d\n", keys.freed);
	return keys.freed == NSLOTS ? 0 : 1;
}
