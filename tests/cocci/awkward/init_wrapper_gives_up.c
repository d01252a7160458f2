/* SPDX-License-Identifier: MIT */
/* An init helper that checks pthread_mutex_init(), reports through the
   program's error function and gives up with `return false` (lrzip's
   init_mutex(control, mutex)).  An init may fail for want of memory, and
   liblock's needs the same check: the helper is an init function, whose
   body keeps its check around liblock_init() on its parameter, now a
   liblock_lock_t *. */
/* expect: transformed */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

struct app {
	pthread_mutex_t lock;
	long hits;
	int errors;
};

static void complain(struct app *a, const char *what)
{
	a->errors++;
	fprintf(stderr, "error: %s\n", what);
}

static bool setup_lock(struct app *a, pthread_mutex_t *m)
{
	if (pthread_mutex_init(m, NULL)) {
		complain(a, "cannot create a lock");
		return false;
	}
	return true;
}

#define NT 4
#define IT 1000

static void *worker(void *p)
{
	struct app *a = p;
	int i;

	for (i = 0; i < IT; i++) {
		pthread_mutex_lock(&a->lock);
		a->hits++;
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

int main(void)
{
	static struct app a;
	pthread_t t[NT];
	int i;

	if (!setup_lock(&a, &a.lock))
		return 2;
	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, &a);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld errors %d\n", a.hits, a.errors);
	return a.hits == (long)NT * IT && a.errors == 0 ? 0 : 1;
}
