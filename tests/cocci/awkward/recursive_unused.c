/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Libraries often make every mutex recursive "to be safe", or
   error-checking in debug builds, and then never take one twice.  Where
   no section, nor anything it calls, takes its own mutex again, the
   program cannot tell these from plain mutexes: they move like them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 3000

struct symtab {
	pthread_mutex_t lock;
	char names[16][8];
	int used;
	unsigned long lookups;
};

static struct symtab tab;
static pthread_mutex_t log_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t seq_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static unsigned long log_lines, seq;

static int symtab_init(struct symtab *t)
{
	pthread_mutexattr_t attr;
	int rc;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	rc = pthread_mutex_init(&t->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	t->used = 0;
	return rc;
}

static int slot_of(const struct symtab *t, const char *name)
{
	int i;

	for (i = 0; i < t->used; i++)
		if (strcmp(t->names[i], name) == 0)
			return i;
	return -1;
}

static int symtab_intern(struct symtab *t, const char *name)
{
	int id;

	pthread_mutex_lock(&t->lock);
	t->lookups++;
	id = slot_of(t, name);
	if (id < 0 && t->used < 16) {
		id = t->used++;
		snprintf(t->names[id], sizeof(t->names[id]), "%s", name);
	}
	pthread_mutex_unlock(&t->lock);
	return id;
}

static void log_line(void)
{
	pthread_mutex_lock(&log_lock);
	log_lines++;
	pthread_mutex_unlock(&log_lock);
}

static unsigned long next_seq(void)
{
	unsigned long v;

	pthread_mutex_lock(&seq_lock);
	v = ++seq;
	pthread_mutex_unlock(&seq_lock);
	return v;
}

static void *worker(void *arg)
{
	static const char *const words[] = { "alpha", "beta", "gamma",
					     "delta", "eps" };
	long me = (long)arg, sum = 0;
	int i;

	for (i = 0; i < IT; i++) {
		sum += symtab_intern(&tab, words[(me + i) % 5]);
		if (i % 10 == 0)
			log_line();
		next_seq();
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t th[NT];
	long i;

	if (symtab_init(&tab) != 0)
		return 1;
	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("used %d lookups %lu log %lu seq %lu\n", tab.used, tab.lookups,
	       log_lines, seq);
	return tab.used == 5 && seq == NT * IT ? 0 : 1;
}
