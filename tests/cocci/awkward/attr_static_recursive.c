/* SPDX-License-Identifier: MIT */
/* A mutex module in the style of a network daemon's compatibility
   layer: one file-scope attribute object, made recursive once by an
   init function, serves every recursive mutex; non-recursive ones get
   NULL.  The wrappers check each result and abort.  The log mutex is
   recursive: the logger's section calls a helper that logs again.  Both
   mutexes are converted, the recursive one keeping its type through the
   static attribute, read when the program runs. */
/* expect: held would take the server thread, not the caller */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 3
#define ROUNDS 2000

typedef struct obj_mutex_t {
	pthread_mutex_t mutex;
} obj_mutex_t;

static pthread_mutexattr_t attr_recursive;
static int attr_initialized = 0;

static void obj_locking_init(void)
{
	if (!attr_initialized) {
		pthread_mutexattr_init(&attr_recursive);
		pthread_mutexattr_settype(&attr_recursive,
					  PTHREAD_MUTEX_RECURSIVE);
		attr_initialized = 1;
	}
}

static void obj_mutex_init(obj_mutex_t *m)
{
	if (!attr_initialized)
		obj_locking_init();
	const int err = pthread_mutex_init(&m->mutex, &attr_recursive);
	if (err)
		abort();
}

static void obj_mutex_init_nonrecursive(obj_mutex_t *m)
{
	int err;

	if (!attr_initialized)
		obj_locking_init();
	err = pthread_mutex_init(&m->mutex, NULL);
	if (err)
		abort();
}

static void obj_mutex_acquire(obj_mutex_t *m)
{
	int err = pthread_mutex_lock(&m->mutex);

	if (err)
		abort();
}

static void obj_mutex_release(obj_mutex_t *m)
{
	int err = pthread_mutex_unlock(&m->mutex);

	if (err)
		abort();
}

static obj_mutex_t log_mutex, queue_mutex;
static long log_lines, log_depth_max, queued;
static int log_depth;

static void log_line(const char *what);

static void log_note_depth(void)
{
	if (log_depth > log_depth_max)
		log_depth_max = log_depth;
	if (log_depth == 1)
		log_line("nested");
}

static void log_line(const char *what)
{
	obj_mutex_acquire(&log_mutex);
	log_depth++;
	log_lines += what[0] != '\0';
	log_note_depth();
	log_depth--;
	obj_mutex_release(&log_mutex);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		obj_mutex_acquire(&queue_mutex);
		queued++;
		obj_mutex_release(&queue_mutex);
		if (i % 10 == 0)
			log_line("tick");
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];

	obj_mutex_init(&log_mutex);
	obj_mutex_init_nonrecursive(&queue_mutex);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("queued %ld lines %ld depth %ld\n", queued, log_lines,
	       log_depth_max);
	return 0;
}
