/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* the mutex is a member of an anonymous struct nested in a named
 * struct, initialised positionally with inner braces:
 *   static struct stats st = { { PTHREAD_MUTEX_INITIALIZER, 0 }, 0 };
 * The defect it guards against: the field becomes liblock_lock_t and the section is
 * delegated, but the initialiser is left as PTHREAD_MUTEX_INITIALIZER;
 * the compile check then finds "braces around scalar initializer" and,
 * unable to blame a lock or section, the tool writes nothing for the whole
 * file (exit 1: "the transformed file has a new diagnostic; nothing
 * written").  With --no-compile-check the output does not build under
 * -Werror (and the lock would be garbage-initialised without it). */
#include <pthread.h>
#include <stdio.h>

struct stats {
	struct {
		pthread_mutex_t lock;
		long hits;
	};
	long misses;
};
static struct stats st = { { PTHREAD_MUTEX_INITIALIZER, 0 }, 0 };

/* The mutex second in an anonymous member that follows a named one, and
   one designated inside the anonymous member's braces. */
static struct {
	long a;
	struct {
		long b;
		pthread_mutex_t mu;
	};
	long c;
} g = { 1, { 2, PTHREAD_MUTEX_INITIALIZER }, 3 };

struct pair {
	union {
		long tag;
		double weight;
	};
	struct {
		pthread_mutex_t lock;
		long n;
	};
};
static struct pair pairs[2] = {
	{ { 7 }, { .lock = PTHREAD_MUTEX_INITIALIZER, .n = 0 } },
	{ { 8 }, { .n = 0, .lock = PTHREAD_MUTEX_INITIALIZER } },
};

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&st.lock);
		st.hits += id;
		st.misses++;
		pthread_mutex_unlock(&st.lock);
		pthread_mutex_lock(&g.mu);
		g.b += g.a + g.c;
		pthread_mutex_unlock(&g.mu);
		pthread_mutex_lock(&pairs[i & 1].lock);
		pairs[i & 1].n += pairs[i & 1].tag;
		pthread_mutex_unlock(&pairs[i & 1].lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld misses %ld b %ld n %ld %ld\n", st.hits, st.misses,
	       g.b, pairs[0].n, pairs[1].n);
	return st.hits == 3000 && st.misses == 3000 ? 0 : 1;
}
