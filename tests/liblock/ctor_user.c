/* SPDX-License-Identifier: MIT */
/*
 * A library linked to librcl.so whose constructor is the first user of
 * liblock: it lists the algorithms and uses a statically initialised
 * "rcl" lock.  The registry knows "rcl" from the moment librcl.so is
 * loaded (ll_rcl_ops, no constructor of its own to wait for);
 * t_register checks what this one saw.
 */
#include <string.h>
#include <unistd.h>

#include "liblock.h"

static liblock_lock_t lock =
	LIBLOCK_INITIALIZER_ALGO("rcl", LIBLOCK_SERVER_DEFAULT);

/* What the constructor saw, for the test program (exported: the tree
 * builds with -fvisibility=hidden). */
#define EXPORT __attribute__((visibility("default")))
EXPORT const char *ctor_user_algorithm;
EXPORT int ctor_user_listed;
EXPORT void *ctor_user_result;

static void *section(void *ctx)
{
	return ctx;
}

static __attribute__((constructor)) void first_use(void)
{
	alarm(120); /* a hang (a server that never answers) fails the test */
	for (const char *const *a = liblock_algorithms(); *a; a++)
		if (strcmp(*a, "rcl") == 0)
			ctor_user_listed = 1;
	ctor_user_algorithm = liblock_lock_algorithm(&lock);
	ctor_user_result = liblock_exec(&lock, section, &lock);
}
