/* SPDX-License-Identifier: MIT */
/* tor's lib/thread: a mutex wrapped in a structure of the project's
   (my_mutex_t) and a counter type declared twice, by an #ifdef: with C11
   atomics when the build has them, else a my_mutex_t beside the value.
   The fallback's functions, in the branch this build skips, pass
   `&counter->mutex` (a my_mutex_t, not the pthread mutex inside it) to
   the wrapper's init.  That member, whose structure only the skipped
   branch declares, was taken for the pthread mutex of my_mutex_t, and
   every section of every my_mutex_t stayed POSIX.  (An #ifndef with no
   #else: its branch is read, as other configurations compile it, while
   the #else of the structure's #ifdef is not.) */
/* expect: transformed */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define HAVE_WORKING_ATOMICS 1

typedef struct my_mutex_t {
	pthread_mutex_t mutex;
} my_mutex_t;

static int locking_ready;
static pthread_mutexattr_t plain_attr;

static void locking_init(void)
{
	if (!locking_ready) {
		pthread_mutexattr_init(&plain_attr);
		locking_ready = 1;
	}
}

static void my_mutex_init(my_mutex_t *m)
{
	int err;

	if (!locking_ready)
		locking_init();
	err = pthread_mutex_init(&m->mutex, &plain_attr);
	if (err) {
		fprintf(stderr, "mutex init: %d\n", err);
		abort();
	}
}

static void my_mutex_acquire(my_mutex_t *m)
{
	if (pthread_mutex_lock(&m->mutex) != 0)
		abort();
}

static void my_mutex_release(my_mutex_t *m)
{
	if (pthread_mutex_unlock(&m->mutex) != 0)
		abort();
}

#ifdef HAVE_WORKING_ATOMICS
typedef struct counter_t {
	atomic_size_t val;
} counter_t;
#else
typedef struct counter_t {
	my_mutex_t mutex;
	size_t val;
} counter_t;
#endif

#ifdef HAVE_WORKING_ATOMICS
static void counter_init(counter_t *c)
{
	atomic_init(&c->val, 0);
}

static void counter_add(counter_t *c, size_t n)
{
	atomic_fetch_add(&c->val, n);
}

static size_t counter_get(counter_t *c)
{
	return atomic_load(&c->val);
}
#endif

#ifndef HAVE_WORKING_ATOMICS
static void counter_init(counter_t *counter)
{
	my_mutex_init(&counter->mutex);
	counter->val = 0;
}

static void counter_add(counter_t *counter, size_t n)
{
	my_mutex_acquire(&counter->mutex);
	counter->val += n;
	my_mutex_release(&counter->mutex);
}

static size_t counter_get(counter_t *counter)
{
	size_t v;

	my_mutex_acquire(&counter->mutex);
	v = counter->val;
	my_mutex_release(&counter->mutex);
	return v;
}
#endif

static my_mutex_t table_lock;
static unsigned long table[64];
static counter_t adds;

static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg;

	for (int i = 0; i < 20000; i++) {
		my_mutex_acquire(&table_lock);
		table[(id * 7 + (unsigned long)i) % 64] += id + 1;
		my_mutex_release(&table_lock);
		counter_add(&adds, 1);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	unsigned long sum = 0;

	my_mutex_init(&table_lock);
	counter_init(&adds);
	for (unsigned long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 64; i++)
		sum += table[i];
	printf("sum %lu adds %zu\n", sum, counter_get(&adds));
	return 0;
}
