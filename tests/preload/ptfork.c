/* SPDX-License-Identifier: MIT */
/*
 * A library whose constructor registers fork handlers that take its lock,
 * as many libraries do.  Being a dependency of the program, it is
 * initialised before the preloaded librclrun.so, and registers its
 * handlers first unless the interposer sees to it that its own come
 * first.  Its child handler releases the lock, then starts a thread that
 * takes it (a library restarting its worker in the child): with the
 * parent's threads queued on that lock at the fork, a queue lock that was
 * not repaired before this handler hands itself to one of them, and the
 * new thread waits for ever.
 */
#include <pthread.h>
#include <stdlib.h>

__attribute__((visibility("default"))) pthread_mutex_t ptfork_lock =
	PTHREAD_MUTEX_INITIALIZER;

static void take(void)
{
	if (pthread_mutex_lock(&ptfork_lock) != 0)
		abort();
}

static void give(void)
{
	if (pthread_mutex_unlock(&ptfork_lock) != 0)
		abort();
}

static void *worker(void *arg)
{
	for (int i = 0; i < 100; i++) {
		take();
		give();
	}
	return arg;
}

static void child(void)
{
	pthread_t t;

	give();
	if (pthread_create(&t, NULL, worker, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		abort();
}

static __attribute__((constructor)) void ptfork_init(void)
{
	if (pthread_atfork(take, give, child) != 0)
		abort();
}
