/* SPDX-License-Identifier: MIT */
/*
 * A library whose constructor registers fork handlers that take its lock,
 * as many libraries do.  Being a dependency of the program, it is
 * initialised before the preloaded librclrun.so: its prepare handler runs
 * after the interposer's, its child handler before the interposer's.
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

static __attribute__((constructor)) void ptfork_init(void)
{
	if (pthread_atfork(take, give, give) != 0)
		abort();
}
