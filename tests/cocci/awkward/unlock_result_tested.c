/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Code that checks every pthread call, the unlock's too: `if
   (pthread_mutex_unlock(&m) != 0) abort();`, plain, as a truth value,
   under the program's unlikely() or __builtin_expect(), through a lock
   macro, with a block that reports and exits.  Unlocking a plain mutex
   its thread holds gives 0: the failure code never runs, and the section
   ends at the if (before, the section was held). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define unlikely(x) __builtin_expect(!!(x), 0)
#define MUTEX_UNLOCK(m) pthread_mutex_unlock(m)
#define NWORKERS 3
#define ROUNDS 5000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long a, b, c, d, e;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		if (pthread_mutex_lock(&m) != 0)
			abort();
		a += id;
		if (pthread_mutex_unlock(&m) != 0)
			abort();

		pthread_mutex_lock(&m);
		b++;
		if (pthread_mutex_unlock(&m))
			abort();

		pthread_mutex_lock(&m);
		c += 2;
		if (unlikely(pthread_mutex_unlock(&m) != 0))
			abort();

		pthread_mutex_lock(&m);
		d += i & 1;
		if (__builtin_expect(MUTEX_UNLOCK(&m), 0)) {
			perror("pthread_mutex_unlock");
			exit(2);
		}

		pthread_mutex_lock(&m);
		e -= 1;
		if (0 != pthread_mutex_unlock(&m))
			abort();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];

	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld %ld %ld %ld\n", a, b, c, d, e);
	return 0;
}
