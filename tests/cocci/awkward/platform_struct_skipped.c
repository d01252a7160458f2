/* SPDX-License-Identifier: MIT */
/* SQLite's mutex_w32.c beside mutex_unix.c: one structure tag, defined
   by each platform's file under its own #if, and only one compiled.  The
   Windows branch, read though this build skips it, initialises its own
   `mutex` member (a CRITICAL_SECTION there, a plain struct here) by
   address; that member was taken for the pthread mutex of the POSIX
   definition, and the lock stayed POSIX. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define USE_W32_MUTEX 0

#if USE_W32_MUTEX
struct crit_section {
	long spin;
};
static void init_crit(struct crit_section *c)
{
	c->spin = 0;
}
struct sys_mutex {
	struct crit_section mutex;
	int id;
};
static void sys_mutex_init(struct sys_mutex *p)
{
	init_crit(&p->mutex);
	p->id = 1;
}
#endif

#if !USE_W32_MUTEX
struct sys_mutex {
	pthread_mutex_t mutex;
	int id;
};
static void sys_mutex_init(struct sys_mutex *p)
{
	pthread_mutex_init(&p->mutex, NULL);
	p->id = 1;
}
#endif

static struct sys_mutex big;
static long total;

static void *worker(void *arg)
{
	long add = (long)arg;

	for (int i = 0; i < 50000; i++) {
		pthread_mutex_lock(&big.mutex);
		total += add;
		pthread_mutex_unlock(&big.mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	sys_mutex_init(&big);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("total %ld id %d\n", total, big.id);
	return 0;
}
