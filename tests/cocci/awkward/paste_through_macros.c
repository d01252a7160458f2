/* SPDX-License-Identifier: MIT */
/* expect: held locked through parameter 'lk' of total_add_locked() */
/* A compile-time assertion pastes a name out of its parameters alone
   (`prefix ## suffix`, the Linux and fio compiletime_assert()), and
   the macros that invoke it give `check_` and __LINE__: no function's
   name can come out of it.  The chain used to be read as able to spell
   any name, so every helper with a lock parameter was "named in a
   macro" and its locks stayed POSIX. */
#include <pthread.h>
#include <stdio.h>

#define __paste_assert(cond, prefix, suffix) \
	typedef char prefix ## suffix[(cond) ? 1 : -1] \
		__attribute__((unused))
#define _paste_assert(cond, prefix, suffix) \
	__paste_assert(cond, prefix, suffix)
#define static_check(cond) _paste_assert(cond, check_, __LINE__)

static pthread_mutex_t total_mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void total_add_locked(pthread_mutex_t *lk, long v)
{
	static_check(sizeof(v) >= sizeof(int));
	pthread_mutex_lock(lk);
	total += v;
	pthread_mutex_unlock(lk);
}

static void *worker(void *arg)
{
	for (long i = 0; i < 20000; i++)
		total_add_locked(&total_mu, (long)arg);
	return NULL;
}

int main(void)
{
	pthread_t tid[4];

	static_check(sizeof(long) >= 4);
	for (long i = 0; i < 4; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	printf("total %ld\n", total);
	return 0;
}
