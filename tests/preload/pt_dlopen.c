/* SPDX-License-Identifier: MIT */
/*
 * librcl.so keeps the thread-local data of its lock fast paths in the
 * initial-exec TLS model (LL_TLS_FAST in liblock/ll_int.h), for rcl-run's
 * sake.  A program that loads it with dlopen() after start-up must still
 * get it (from glibc's surplus static TLS) and lock with it from several
 * threads.  Usage: pt_dlopen PATH/librcl.so.0
 * Exit 0 on success, 1 with a one-line reason on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include "liblock.h"
#include "pt.h"

#define THREADS 4
#define ITERS 20000

static int (*ll_init)(liblock_lock_t *, const liblock_attr_t *);
static int (*ll_lock)(liblock_lock_t *);
static int (*ll_unlock)(liblock_lock_t *);
static int (*ll_destroy)(liblock_lock_t *);
static liblock_lock_t lock;
static long counter; /* under lock */

static void *worker(void *arg)
{
	for (int i = 0; i < ITERS; i++) {
		CHECK(ll_lock(&lock));
		counter++;
		CHECK(ll_unlock(&lock));
	}
	return arg;
}

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p)
		FAIL("dlsym %s: %s", name, dlerror());
	return p;
}

static void run(const char *algo)
{
	liblock_attr_t attr = LIBLOCK_ATTR_INITIALIZER;
	pthread_t t[THREADS];

	attr.algorithm = algo;
	attr.flags = LIBLOCK_ATTR_FIXED;
	counter = 0;
	CHECK(ll_init(&lock, &attr));
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL));
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_join(t[i], NULL));
	if (counter != (long)THREADS * ITERS)
		FAIL("%s: counter %ld, want %ld", algo, counter,
		     (long)THREADS * ITERS);
	CHECK(ll_destroy(&lock));
}

int main(int argc, char **argv)
{
	static const char *const algos[] = {"posix", "mcs", "spinlock",
					    "ticket"};
	void *h;

	if (argc != 2)
		FAIL("usage: pt_dlopen PATH/librcl.so.0");
	if (!(h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)))
		FAIL("dlopen: %s", dlerror());
	*(void **)&ll_init = sym(h, "liblock_init");
	*(void **)&ll_lock = sym(h, "liblock_lock");
	*(void **)&ll_unlock = sym(h, "liblock_unlock");
	*(void **)&ll_destroy = sym(h, "liblock_destroy");
	for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		run(algos[i]);
	printf("ok: %zu algorithms through a dlopen()ed %s\n",
	       sizeof(algos) / sizeof(algos[0]), argv[1]);
	return 0;
}
