/* SPDX-License-Identifier: MIT */
/* multipath-tools' foreign.c calls its plugins through function pointers
   named like the program's own lock wrappers: fgn->lock(fgn->context),
   fgn->unlock(fgn->context), beside a global lock()/unlock() pair.  A
   member call is no call of lock(): it was counted as a section of the
   wrapper's lock ("Coccinelle cannot parse ..."), and a section that
   called o->unlock(o) was held ("unlock() called inside an
   expression"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

struct table {
	pthread_mutex_t mu;
	long rows;
};

struct handle {
	void (*lock)(struct handle *);
	void (*unlock)(struct handle *);
	long uses;
};

static struct table tab = { PTHREAD_MUTEX_INITIALIZER, 0 };

void lock(struct table *t);
void unlock(struct table *t);

void lock(struct table *t)
{
	pthread_mutex_lock(&t->mu);
}

void unlock(struct table *t)
{
	pthread_mutex_unlock(&t->mu);
}

static void handle_nop(struct handle *h)
{
	(void)h;
}

static void handle_done(struct handle *h)
{
	h->uses++;
}

static struct handle plugin = { handle_nop, handle_done, 0 };

static void add_row(struct handle *h)
{
	lock(&tab);
	tab.rows++;
	h->unlock(h); /* counts a use: under tab's lock */
	unlock(&tab);
}

static void *worker(void *arg)
{
	struct handle *h = arg;

	for (int i = 0; i < 40000; i++) {
		h->lock(h);
		add_row(h);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &plugin);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("rows %ld uses %ld\n", tab.rows, plugin.uses);
	return tab.rows == 160000 && plugin.uses == 160000 ? 0 : 1;
}
