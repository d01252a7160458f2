/* SPDX-License-Identifier: MIT */
/* Pointers to mutexes that are not followed: one that may hold a lock
   that stays POSIX (its address is also an initialiser), one given
   memory by a function not known to allocate, one allocated with a size
   not tied to the mutex type, one initialised at its declaration.  Each
   lock stays POSIX, with the line. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t fixed = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *maybe_fixed;
static pthread_mutex_t *from_pool;
static pthread_mutex_t *odd_size;
static pthread_mutex_t *at_decl = &fixed;
static int counter;

extern void *pool_get(size_t size);

void setup(int which)
{
	if (which)
		maybe_fixed = &fixed;
	else
		maybe_fixed = malloc(sizeof(pthread_mutex_t));
	from_pool = pool_get(sizeof(pthread_mutex_t));
	odd_size = malloc(64);
}

void bump(void)
{
	pthread_mutex_lock(maybe_fixed);
	counter++;
	pthread_mutex_unlock(maybe_fixed);
	pthread_mutex_lock(from_pool);
	counter++;
	pthread_mutex_unlock(from_pool);
	pthread_mutex_lock(odd_size);
	counter++;
	pthread_mutex_unlock(odd_size);
	pthread_mutex_lock(at_decl);
	counter++;
	pthread_mutex_unlock(at_decl);
}
