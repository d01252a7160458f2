/* SPDX-License-Identifier: MIT */
/*
 * A program that brings its own malloc, built on a pthread mutex, as
 * jemalloc does with its arena and bin locks: under rcl-run that mutex is a
 * liblock lock, so the lock library must never call malloc() while taking
 * it, and must never touch a block it has given back to the allocator
 * (jemalloc's thread_arena test crashed under rcl-run with mcs, clh and
 * malthusian: a queue node freed at thread exit, through the program's
 * free(), was the node of the lock that free() then took).
 *
 * The allocator aborts when it is entered from inside itself, and checks
 * on every reuse that nobody wrote into a block after it was freed.
 * Threads allocate, free and exit in rounds (more threads than CPUs), and
 * keep a shared tally under a mutex of their own.  The output is the same
 * with and without rcl-run.
 *
 * Sanitizer builds: ASan and TSan own malloc; the program says so and
 * exits 77.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int main(void)
{
	puts("SKIP: a sanitizer owns malloc in this build");
	return 77;
}
#else

#define HDR 64		  /* header before every block; blocks 64-aligned */
#define NCLASS 27	  /* capacities 64 << c, up to 4 GiB */
#define ARENA (1ul << 32) /* reserved, never returned */
#define POISON 0x5a
#define CHECKED 256	       /* poisoned bytes checked on reuse */
#define MAGIC 0x70746d616c6cul /* "ptmall" */

struct hdr {
	size_t cap;  /* usable bytes, 64 << class */
	size_t size; /* bytes asked for */
	uint64_t magic;
	int cls;
};

/* The build hides symbols by default: these must replace glibc's. */
#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t heap_mu = PTHREAD_MUTEX_INITIALIZER;
static char *arena, *bump, *arena_end;
static void *free_list[NCLASS];
static unsigned long ops; /* under heap_mu */
static __thread int inside;

static void die(const char *what)
{
	char buf[160];
	int n = snprintf(buf, sizeof(buf), "pt_malloc: %s\n", what);

	/* no stdio buffers: they would allocate */
	if (write(2, buf, (size_t)n) < 0)
		_exit(99);
	abort();
}

static void enter(void)
{
	if (inside)
		die("the allocator was entered from inside itself "
		    "(a lock taken in malloc() called malloc())");
	inside = 1;
	if (pthread_mutex_lock(&heap_mu) != 0)
		die("pthread_mutex_lock failed");
	/* now and then, let the other threads queue up on heap_mu, as a
	 * holder preempted on a busy machine does: rcl-run gives a mutex
	 * its algorithm's state the first time it is found held */
	if ((++ops & 31) == 0)
		sched_yield();
}

static void leave(void)
{
	if (pthread_mutex_unlock(&heap_mu) != 0)
		die("pthread_mutex_unlock failed");
	inside = 0;
}

static struct hdr *hdr_of(void *p)
{
	struct hdr *h = (struct hdr *)((char *)p - HDR);

	if (h->magic != MAGIC)
		die("free() or realloc() of a block this allocator never gave");
	return h;
}

static int class_of(size_t size)
{
	int c = 0;

	while (((size_t)64 << c) < size)
		if (++c == NCLASS)
			return -1;
	return c;
}

/* Under heap_mu. */
static void *take(size_t size, size_t align)
{
	int c = class_of(size ? size : 1);
	struct hdr *h;
	char *p;

	if (c < 0)
		return NULL;
	if (align <= HDR && free_list[c]) {
		p = free_list[c];
		free_list[c] = *(void **)p;
		for (size_t i = sizeof(void *);
		     i < CHECKED && i < ((size_t)64 << c); i++)
			if ((unsigned char)p[i] != POISON)
				die("a freed block was written after free()");
	} else {
		if (!arena) {
			void *m = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS |
					       MAP_NORESERVE,
				       -1, 0);

			if (m == MAP_FAILED)
				return NULL;
			arena = bump = m;
			arena_end = arena + ARENA;
		}
		if (align < HDR)
			align = HDR;
		p = (char *)(((uintptr_t)bump + HDR + align - 1) &
			     ~(uintptr_t)(align - 1));
		if (p + ((size_t)64 << c) > arena_end)
			return NULL;
		bump = p + ((size_t)64 << c);
	}
	h = (struct hdr *)(p - HDR);
	h->cap = (size_t)64 << c;
	h->size = size;
	h->magic = MAGIC;
	h->cls = c;
	return p;
}

/* Under heap_mu. */
static void give(void *p)
{
	struct hdr *h = hdr_of(p);
	size_t n = h->cap < CHECKED ? h->cap : CHECKED;

	memset(p, POISON, n);
	*(void **)p = free_list[h->cls];
	free_list[h->cls] = p;
}

EXPORT void *malloc(size_t size)
{
	void *p;

	enter();
	p = take(size, 0);
	leave();
	if (!p)
		errno = ENOMEM;
	return p;
}

EXPORT void free(void *p)
{
	if (!p)
		return;
	enter();
	give(p);
	leave();
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if ((p = malloc(n * size)))
		memset(p, 0, n * size);
	return p;
}

EXPORT void *realloc(void *old, size_t size)
{
	void *p;

	if (!old)
		return malloc(size);
	if (!size) {
		free(old);
		return NULL;
	}
	if (size <= hdr_of(old)->cap) {
		hdr_of(old)->size = size;
		return old;
	}
	if ((p = malloc(size))) {
		memcpy(p, old, hdr_of(old)->size);
		free(old);
	}
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	enter();
	p = take(size, align);
	leave();
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p = NULL;
	int rc = posix_memalign(&p, align, size);

	if (rc)
		errno = rc;
	return p;
}

EXPORT void *memalign(size_t align, size_t size)
{
	return aligned_alloc(align, size);
}

EXPORT void *valloc(size_t size)
{
	return aligned_alloc(4096, size);
}

EXPORT void *pvalloc(size_t size)
{
	return aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
}

EXPORT size_t malloc_usable_size(void *p)
{
	return p ? hdr_of(p)->cap : 0;
}

/* ---- the program ----------------------------------------------------- */

#define THREADS 8
#define ROUNDS 25
#define BLOCKS 64
#define STEPS 400

static pthread_mutex_t tally_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long tally_bytes, tally_blocks;

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	unsigned char *keep[BLOCKS] = {0};
	size_t len[BLOCKS] = {0};
	unsigned long bytes = 0, blocks = 0;

	for (int s = 0; s < STEPS; s++) {
		int i = (int)(rand_r(&seed) % BLOCKS);
		size_t n = 1 + rand_r(&seed) % 2000;

		if (keep[i]) {
			for (size_t j = 0; j < len[i]; j++)
				if (keep[i][j] != (unsigned char)(i + len[i]))
					die("a live block changed under its "
					    "owner");
			free(keep[i]);
		}
		if (!(keep[i] = malloc(n)))
			die("out of memory");
		memset(keep[i], (unsigned char)(i + n), n);
		len[i] = n;
		bytes += n;
		blocks++;
	}
	for (int i = 0; i < BLOCKS; i++)
		free(keep[i]);
	pthread_mutex_lock(&tally_mu);
	tally_bytes += bytes;
	tally_blocks += blocks;
	pthread_mutex_unlock(&tally_mu);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, worker,
					   (void *)(uintptr_t)(r * THREADS + i +
							       1)) != 0)
				die("pthread_create failed");
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
	}
	printf("%d threads in %d rounds: %lu blocks, %lu bytes\n", THREADS,
	       ROUNDS, tally_blocks, tally_bytes);
	return 0;
}
#endif
