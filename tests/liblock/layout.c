/* SPDX-License-Identifier: MIT */
/*
 * The layout of liblock's public types as the compiler of this file sees
 * it: t_cxx_layout.sh builds it as C and as C++ and compares what each
 * prints.  liblock.h gives C++ plain fields where C has atomic ones (a
 * header of the program, shared by its C and C++ files, embeds a lock in
 * a structure: both must agree on where every field is).
 */
#include <stdio.h>
#include <stddef.h>

#include "liblock.h"

#define FIELD(type, f)                                                         \
	printf("%s.%s %zu %zu\n", #type, #f, offsetof(type, f),                \
	       sizeof(((type *)0)->f))

/* A structure of the program around a lock and a condition, initialised
 * statically as rcl-refactor writes it. */
struct shared {
	char tag;
	liblock_lock_t lock;
	liblock_cond_t cond;
	long count;
};

static struct shared shared = {
	'x', LIBLOCK_INITIALIZER_ALGO("mcs", LIBLOCK_SERVER_DEFAULT),
	LIBLOCK_COND_INITIALIZER, 0};

int main(void)
{
	printf("liblock_lock_t %zu %zu\n", sizeof(liblock_lock_t),
	       _Alignof(liblock_lock_t));
	FIELD(liblock_lock_t, _ops);
	FIELD(liblock_lock_t, _impl);
	FIELD(liblock_lock_t, _algorithm);
	FIELD(liblock_lock_t, _server);
	FIELD(liblock_lock_t, _flags);
	FIELD(liblock_lock_t, _state);
	FIELD(liblock_lock_t, _depth);
	FIELD(liblock_lock_t, _owner);
	printf("liblock_cond_t %zu %zu\n", sizeof(liblock_cond_t),
	       _Alignof(liblock_cond_t));
	FIELD(liblock_cond_t, _seq);
	FIELD(liblock_cond_t, _waiters);
	FIELD(liblock_cond_t, _clock);
	FIELD(liblock_cond_t, _magic);
	FIELD(struct shared, lock);
	FIELD(struct shared, cond);
	FIELD(struct shared, count);
	printf("initialised %s %d\n", shared.lock._algorithm,
	       shared.cond._magic == LIBLOCK_COND_MAGIC);
	return 0;
}
