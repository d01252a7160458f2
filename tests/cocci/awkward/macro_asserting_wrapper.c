/* SPDX-License-Identifier: MIT */
/* A daemon's logging module: its lock macros are statement macros that
   assert the module is initialised, then call the mutex wrapper, a
   function that asserts its argument and takes the mutex inside it
   (checking the result).  The mutex is recursive (a file-scope
   attribute object) and the logger takes it again when it reports its
   own depth.  The macros' sections are held; the wrapper keeps being
   called, its body taking the liblock lock. */
/* expect: held locked in the body of macro LOCK_LOG */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_BEGIN do {
#define BLOCK_END                                                             \
	}                                                                     \
	while (0)
#define must(cond)                                                            \
	BLOCK_BEGIN if (!(cond))                                              \
	{                                                                     \
		fprintf(stderr, "failed: %s\n", #cond);                       \
		abort();                                                      \
	}                                                                     \
	BLOCK_END

typedef struct guard {
	pthread_mutex_t mutex;
} guard_t;

static pthread_mutexattr_t nested_attr;
static int nested_attr_ready;

static void guard_init(guard_t *g)
{
	if (!nested_attr_ready) {
		pthread_mutexattr_init(&nested_attr);
		pthread_mutexattr_settype(&nested_attr,
					  PTHREAD_MUTEX_RECURSIVE);
		nested_attr_ready = 1;
	}
	if (pthread_mutex_init(&g->mutex, &nested_attr) != 0)
		abort();
}

static void guard_take(guard_t *g)
{
	int err;

	must(g != NULL);
	err = pthread_mutex_lock(&g->mutex);
	if (err)
		abort();
}

static void guard_give(guard_t *g)
{
	int err;

	must(g != NULL);
	err = pthread_mutex_unlock(&g->mutex);
	if (err)
		abort();
}

static guard_t log_guard;
static int log_ready;
static long entries, nested_entries;
static int depth;

#define LOCK_LOG()                                                            \
	BLOCK_BEGIN                                                           \
	must(log_ready);                                                      \
	guard_take(&log_guard);                                               \
	BLOCK_END
#define UNLOCK_LOG()                                                          \
	BLOCK_BEGIN                                                           \
	must(log_ready);                                                      \
	guard_give(&log_guard);                                               \
	BLOCK_END

static void log_entry(int level)
{
	LOCK_LOG();
	depth++;
	entries++;
	if (depth > 1)
		nested_entries++;
	else if (level > 2)
		log_entry(0); /* the logger reports through itself */
	depth--;
	UNLOCK_LOG();
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 4000; i++)
		log_entry((int)((i + id) % 4));
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	guard_init(&log_guard);
	log_ready = 1;
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("entries %ld nested %ld\n", entries, nested_entries);
	return 0;
}
