/* SPDX-License-Identifier: MIT */
/* SQLite's mutex layer: an opaque mutex type whose pthreads
   implementation is reached through a table of functions, static
   mutexes in an array initialised by a function-like macro defined in
   three #if branches (`#define MY_MUTEX_INITIALIZER(id) {
   PTHREAD_MUTEX_INITIALIZER, id }`), a default-mutex init in a branch the
   build skips, and a macro that names another structure's `mutex`
   pointer inside assert(), which NDEBUG compiles away (pcache1's
   `pcache1EnterMutex(X)`, used on `&pcache1.grp` where pcache1 is a macro
   around a global).  Before, the array kept pthread initialisers
   under a liblock type (the compile check refused the result), and the
   assert's `(X)->mutex` kept the lock POSIX. */
/* expect: held trylock section */
#define NDEBUG 1
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MUTEX_NREF 0
#define API_ARMOR 1

struct my_mutex {
	pthread_mutex_t mutex;
#if MUTEX_NREF || API_ARMOR
	int id;
#endif
#if MUTEX_NREF
	int nref;
#endif
};
#if MUTEX_NREF
#define MY_MUTEX_INITIALIZER(id) { PTHREAD_MUTEX_INITIALIZER, id, 0 }
#elif API_ARMOR
#define MY_MUTEX_INITIALIZER(id) { PTHREAD_MUTEX_INITIALIZER, id }
#else
#define MY_MUTEX_INITIALIZER(id) { PTHREAD_MUTEX_INITIALIZER }
#endif

struct mutex_methods {
	struct my_mutex *(*alloc)(int);
	void (*enter)(struct my_mutex *);
	int (*try)(struct my_mutex *);
	void (*leave)(struct my_mutex *);
	void (*free)(struct my_mutex *);
};

static struct my_mutex *impl_alloc(int type)
{
	static struct my_mutex statics[] = {
		MY_MUTEX_INITIALIZER(2),
		MY_MUTEX_INITIALIZER(3),
		MY_MUTEX_INITIALIZER(4),
	};
	struct my_mutex *p;

	if (type >= 2)
		return &statics[type - 2];
	p = calloc(1, sizeof(*p));
	if (p) {
#ifdef HOMEGROWN_RECURSIVE
		pthread_mutex_init(&p->mutex, 0);
#else
		pthread_mutexattr_t attr;

		pthread_mutexattr_init(&attr);
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&p->mutex, &attr);
		pthread_mutexattr_destroy(&attr);
#endif
#if MUTEX_NREF || API_ARMOR
		p->id = type;
#endif
	}
	return p;
}

static void impl_enter(struct my_mutex *p)
{
	pthread_mutex_lock(&p->mutex);
}

static int impl_try(struct my_mutex *p)
{
	if (pthread_mutex_trylock(&p->mutex) == 0)
		return 0;
	return 5;
}

static void impl_leave(struct my_mutex *p)
{
	pthread_mutex_unlock(&p->mutex);
}

static void impl_free(struct my_mutex *p)
{
	pthread_mutex_destroy(&p->mutex);
	free(p);
}

static struct mutex_methods methods = { impl_alloc, impl_enter, impl_try,
					impl_leave, impl_free };
#define global_methods methods

static void mutex_enter(struct my_mutex *p)
{
	if (p)
		global_methods.enter(p);
}

static void mutex_leave(struct my_mutex *p)
{
	if (p)
		global_methods.leave(p);
}

/* A cache's group: its `mutex` is a pointer to one of the above. */
struct group {
	struct my_mutex *mutex;
	unsigned long pages;
};
#define group_enter(X) assert((X)->mutex == 0)
#define group_leave(X) assert((X)->mutex == 0)

static struct group groups[3];

/* The global cache, through a macro as SQLite's WSD globals are. */
#ifdef OMIT_WSD
#define GLOBAL(t, v) (*(t *)wsd_find((void *)&(v), sizeof(v)))
#else
#define GLOBAL(t, v) v
#endif
struct cache_global {
	struct group grp;
	unsigned long n;
};
static struct cache_global cache_g;
#define pcache (GLOBAL(struct cache_global, cache_g))

static struct group *group_at(int i);

static int group_unheld(struct group *g)
{
	return g->mutex == 0;
}
static struct my_mutex *shared_rec;
static unsigned long hits[4];

static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg;
	struct my_mutex *m = global_methods.alloc(2 + (int)(id % 3));
	struct group *g = &groups[id % 3];

	for (int i = 0; i < 20000; i++) {
		mutex_enter(shared_rec);
		hits[id % 3]++;
		mutex_enter(shared_rec); /* recursive: SQLite's db mutexes nest */
		hits[3]++;
		mutex_leave(shared_rec);
		mutex_leave(shared_rec);
		if (global_methods.try(m) == 0) {
			g->pages++;
			global_methods.leave(m);
		}
		group_enter(g);
		group_leave(g);
		assert(group_unheld(&pcache.grp) && pcache.grp.mutex == 0);
		assert(group_at((int)(id % 3))->mutex == 0);
		group_enter(&pcache.grp);
		group_leave(&pcache.grp);
	}
	return NULL;
}

static struct group *group_at(int i)
{
	return &groups[i];
}

int main(void)
{
	pthread_t t[3];
	struct my_mutex *rec = global_methods.alloc(1);

	shared_rec = rec;
	for (unsigned long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("hits %lu %lu %lu %lu pages %lu unheld %d\n", hits[0], hits[1],
	       hits[2], hits[3],
	       groups[0].pages + groups[1].pages + groups[2].pages,
	       group_unheld(&pcache.grp) && group_unheld(group_at(1)));
	global_methods.free(rec);
	return 0;
}
