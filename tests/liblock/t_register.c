/* SPDX-License-Identifier: MIT */
/*
 * liblock's registry knows the RCL runtime's "rcl" as soon as librcl.so is
 * loaded, before any object linked to it runs: a static lock first used from
 * another library's constructor (ctor_user.c) gets "rcl", not the posix
 * fallback, and liblock_algorithms() lists rcl there, last.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liblock.h"
#include "rcl.h"

extern const char *ctor_user_algorithm;
extern int ctor_user_listed;
extern void *ctor_user_result;

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "t_register: %s\n", what);
		failed = 1;
	}
}

int main(void)
{
	const char *const *a = liblock_algorithms();
	const char *env = getenv("LIBLOCK_LOCK");
	int n = 0;

	if (env && *env) {
		printf("SKIP: LIBLOCK_LOCK=%s overrides the static lock\n",
		       env);
		return 77;
	}
	check(ctor_user_listed, "liblock_algorithms() in a constructor of a "
				"library linked to librcl.so lacks rcl");
	check(ctor_user_algorithm && strcmp(ctor_user_algorithm, "rcl") == 0,
	      "a static rcl lock first used in a constructor did not get rcl");
	check(ctor_user_result != NULL, "its section did not run");
	while (a[n])
		n++;
	check(n > 1 && strcmp(a[n - 1], "rcl") == 0,
	      "rcl is not the last algorithm listed");
	check(rcl_shutdown() == 0, "rcl_shutdown failed");
	return failed;
}
