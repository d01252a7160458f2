/* SPDX-License-Identifier: MIT */
/* A block macro built on two nested for statements, as liblzma's
   mythread.h writes it: the outer loop locks on entry and unlocks when
   it comes round again; the inner one runs the body once and catches a
   break, which then ends the section with the unlock. */
/* expect: transformed */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 400

typedef pthread_mutex_t mt_mutex;

static inline void mt_lock(mt_mutex *m)
{
	int r = pthread_mutex_lock(m);
	assert(r == 0);
	(void)r;
}

static inline void mt_unlock(mt_mutex *m)
{
	int r = pthread_mutex_unlock(m);
	assert(r == 0);
	(void)r;
}

#define guarded(m) guarded_at(m, __LINE__)
#define guarded_at(m, n) guarded_in(m, n)
#define guarded_in(m, n) \
	for (unsigned int g_once_##n = 0; \
	     g_once_##n ? (mt_unlock(&(m)), 0) : (mt_lock(&(m)), 1); \
	     g_once_##n = 1) \
		for (unsigned int g_body_##n = 0; !g_body_##n; g_body_##n = 1)

struct tally {
	mt_mutex mu;
	long sum;
	long skipped;
};

static struct tally tl = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		guarded(tl.mu)
		{
			if ((i + id) % 3 == 0) {
				tl.skipped++;
				break; /* leaves the block, not the for loop */
			}
			tl.sum += i;
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld skipped %ld\n", tl.sum, tl.skipped);
	return 0;
}
