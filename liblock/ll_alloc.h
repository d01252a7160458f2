/* SPDX-License-Identifier: MIT */
/*
 * The heap of liblock, the RCL runtime and the rcl-run interposer: glibc's
 * own allocator, called by its internal names, never the program's malloc.
 *
 * A program may bring an allocator that takes pthread mutexes (jemalloc's
 * arena and bin locks, mimalloc's and Hoard's).  Under rcl-run those
 * mutexes are liblock locks, so any malloc() made while taking one --
 * a queue lock's per-thread node, the interposer's state of a mutex seen
 * for the first time, a thread's list of held locks -- re-enters that
 * allocator inside its own critical section, and a node freed at thread
 * exit could be the block the allocator's lock is still queued on.
 * glibc's __libc_malloc() and friends are exported for allocator
 * replacements to call; they lock with glibc's internal futex locks, which
 * nothing interposes.
 *
 * Sanitizer builds keep the program's malloc: ASan and TSan must see every
 * block (and ASan's __libc_memalign interceptor would hand glibc's free()
 * a block of its own).
 */
#ifndef LL_ALLOC_H
#define LL_ALLOC_H

#include "config.h"

#include <stddef.h>
#include <stdlib.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LL_ALLOC_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LL_ALLOC_SANITIZED 1
#endif

#if defined(HAVE___LIBC_MALLOC) && defined(HAVE___LIBC_CALLOC) &&              \
	defined(HAVE___LIBC_REALLOC) && defined(HAVE___LIBC_MEMALIGN) &&       \
	defined(HAVE___LIBC_FREE) && !defined(LL_ALLOC_SANITIZED)
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);

static inline void *ll_malloc(size_t size)
{
	return __libc_malloc(size);
}

static inline void *ll_calloc(size_t n, size_t size)
{
	return __libc_calloc(n, size);
}

static inline void *ll_realloc(void *p, size_t size)
{
	return __libc_realloc(p, size);
}

/* @align a power of two. */
static inline void *ll_memalign(size_t align, size_t size)
{
	return __libc_memalign(align, size);
}

static inline void ll_free(void *p)
{
	__libc_free(p);
}
#else
static inline void *ll_malloc(size_t size)
{
	return malloc(size);
}

static inline void *ll_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

static inline void *ll_realloc(void *p, size_t size)
{
	return realloc(p, size);
}

static inline void *ll_memalign(size_t align, size_t size)
{
	void *p = NULL;

	return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static inline void ll_free(void *p)
{
	free(p);
}
#endif

#endif /* LL_ALLOC_H */
