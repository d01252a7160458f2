/* SPDX-License-Identifier: MIT */
/* The table of ptr_field_param_null.c (a lock behind a pointer field,
   an open function taking an optional lock to share), but one table is
   opened sharing a static mutex of the program: the field may hold the
   address of another lock, so both stay POSIX, and the reason names
   the call that passes it. */
/* expect: refused lock shared_mu stays POSIX */
/* expect: refused of table_open() receives '&shared_mu' at */
/* expect: refused ptr_field_param_other.c:80 (only NULL */
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
static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;

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
	    table_open(&hosts, "hosts", &shared_mu) != 0)
		return 1;
	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("%s %ld %ld\n", users.name, users.rows, users.sum);
	pthread_mutex_lock(&shared_mu);
	printf("%s %ld %ld\n", hosts.name, hosts.rows, hosts.sum);
	pthread_mutex_unlock(&shared_mu);
	table_close(&users);
	table_close(&hosts);
	return users.rows == NT * IT ? 0 : 2;
}
