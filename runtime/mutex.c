/* SPDX-License-Identifier: MIT */
/*
 * The runtime's own mutexes (server table, lock pool, client ids, CPU
 * reservations) are glibc's, called through libc.so's own definitions of
 * pthread_mutex_lock/trylock/unlock.
 *
 * A call by name would reach rcl-run's interposer, which turns a mutex
 * into a lock of the run's algorithm the first time it finds it busy.  For
 * the runtime's mutexes that is wrong twice over: with "rcl" the lock is
 * built by the runtime being locked, and building it takes the lock
 * pool's mutex, which the runtime's fork prepare handler already holds
 * when it takes the server mutex: a fork that met a busy server mutex hung
 * for good.  The same holds for a program that brings its own
 * pthread_mutex_lock.
 *
 * libc.so is asked for its symbols by handle (dlsym on the handle searches
 * that object, not the process), once, from a constructor that runs
 * before the runtime's others.  Until then (rcl-run may configure itself
 * from another library's constructor, before ours) the public names
 * stand in: one thread only runs constructors.  Sanitizer builds keep the
 * public names, which their interceptors must see.
 */
#include "rcl_int.h"

#include <dlfcn.h>
#include <gnu/lib-names.h>

struct rcl_mutex_fns rcl_mutex = {
	.lock = pthread_mutex_lock,
	.trylock = pthread_mutex_trylock,
	.unlock = pthread_mutex_unlock,
};

#if !defined(LL_ALLOC_SANITIZED)
static __attribute__((constructor(101))) void mutex_resolve(void)
{
	void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
	struct rcl_mutex_fns f;

	if (!libc) {
		ll_log(LL_WARN,
		       "cannot find %s: the RCL runtime's mutexes "
		       "are the process's pthread_mutex_lock",
		       LIBC_SO);
		return;
	}
	*(void **)&f.lock = dlsym(libc, "pthread_mutex_lock");
	*(void **)&f.trylock = dlsym(libc, "pthread_mutex_trylock");
	*(void **)&f.unlock = dlsym(libc, "pthread_mutex_unlock");
	/* all three or none: a mutex taken by one is released by another */
	if (f.lock && f.trylock && f.unlock)
		rcl_mutex = f;
	/* the handle stays open: libc.so is never unloaded anyway */
}
#endif
