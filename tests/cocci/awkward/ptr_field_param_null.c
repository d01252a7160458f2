/* SPDX-License-Identifier: MIT */
/* A table whose lock lives behind a pointer field, as opendkim's
   struct dkimf_db does: the open function takes an optional lock to
   share, `if (shared != NULL) t->lock = shared;`, and otherwise
   allocates and initialises a lock of its own.  Every call in the
   program passes NULL (once through a cast), so the field only ever
   holds NULL or memory allocated for the mutex type: the lock is
   converted, with the parameter's type, and its sections delegated.
   The open function is declared first through a macro for pre-ANSI
   compilers, as opendkim declares it with __P((...)): that prototype
   changes with the parameter. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define IT 3000

struct table {
	const char *name;
	int owns_lock;
	pthread_mutex_t *lock;
	long rows;
	long sum;
};

#define PROTO(args) args

static int table_open PROTO((struct table *, const char *,
			     pthread_mutex_t *));

static int table_open(struct table *t, const char *name,
		      pthread_mutex_t *shared)
{
	memset(t, 0, sizeof *t);
	t->name = name;
	if (shared != NULL) {
		t->lock = shared;
	} else {
		t->lock = (pthread_mutex_t *)malloc(sizeof(pthread_mutex_t));
		if (t->lock == NULL)
			return -1;
		pthread_mutex_init(t->lock, NULL);
		t->owns_lock = 1;
	}
	return 0;
}

static void table_close(struct table *t)
{
	if (t->owns_lock) {
		pthread_mutex_destroy(t->lock);
		free(t->lock);
	}
	t->lock = NULL;
}

static void table_add(struct table *t, long v)
{
	pthread_mutex_lock(t->lock);
	t->rows++;
	t->sum += v;
	pthread_mutex_unlock(t->lock);
}

static struct table users, hosts;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < IT; i++) {
		table_add(&users, id + i);
		if (i % 3 == 0)
			table_add(&hosts, i);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];

	if (table_open(&users, "users", NULL) != 0 ||
	    table_open(&hosts, "hosts", (pthread_mutex_t *)NULL) != 0)
		return 1;
	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("%s %ld %ld\n", users.name, users.rows, users.sum);
	printf("%s %ld %ld\n", hosts.name, hosts.rows, hosts.sum);
	table_close(&users);
	table_close(&hosts);
	return users.rows == NT * IT ? 0 : 2;
}
