/* SPDX-License-Identifier: MIT */
/* expect: held __attribute__((cleanup)) */
/* user database: alias lookups with _cleanup_free_ temporaries */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 400

struct alias { const char *from, *to; };

struct userdb {
	struct {
		pthread_mutex_t lock;
		unsigned long lookups, hits;
	} cache;
	const struct alias *aliases;
	size_t naliases;
};

static const struct alias alias_table[] = {
	{ "root", "admin" }, { "www", "www-data" }, { "pg", "postgres" },
};

static struct userdb db = {
	.cache = { .lock = PTHREAD_MUTEX_INITIALIZER },
	.aliases = alias_table,
	.naliases = sizeof(alias_table) / sizeof(alias_table[0]),
};

static inline void freep(void *p) { free(*(void **)p); }
#define _cleanup_free_ __attribute__((cleanup(freep)))

static char *lookup_alias(const struct userdb *d, const char *user)
{
	size_t i;

	for (i = 0; i < d->naliases; i++)
		if (strcmp(d->aliases[i].from, user) == 0)
			return strdup(d->aliases[i].to);
	return NULL;
}

static int userdb_display_name(struct userdb *d, const char *user, char *buf, size_t len)
{
	const char *display;

	pthread_mutex_lock(&d->cache.lock);
	_cleanup_free_ char *alias = lookup_alias(d, user);
	display = alias ? alias : user;
	d->cache.lookups++;
	if (alias)
		d->cache.hits++;
	pthread_mutex_unlock(&d->cache.lock);
	return snprintf(buf, len, "%s", display);
}

static void *worker(void *arg)
{
	static const char *const users[] = { "root", "alice", "www", "bob", "pg" };
	static const char *const want[] = { "admin", "alice", "www-data", "bob", "postgres" };
	long id = (long)arg, bad = 0;
	char buf[32];
	int i;

	for (i = 0; i < IT; i++) {
		int k = (int)((i + id) % 5);
		userdb_display_name(&db, users[k], buf, sizeof(buf));
		if (strcmp(buf, want[k]) != 0)
			bad++;
	}
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("lookups %lu hits %lu bad %ld\n", db.cache.lookups, db.cache.hits, bad);
	return bad == 0 && db.cache.hits == NT * IT / 5 * 3 ? 0 : 1;
}
