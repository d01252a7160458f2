/* SPDX-License-Identifier: MIT */
/* unbound's util/locks.h: with lock checking off, lock_protect(lock,
   area, size) expands to nothing, and the code calls it after each init,
   lock_protect(&sp->lock, &sp->hits, sizeof(sp->hits)).  An argument the
   macro drops is no use of the lock: it kept six of unbound's locks
   POSIX ("used outside lock/unlock/init/destroy/condition calls"). */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define lock_protect(lock, area, size) /* nop */
#define lock_unprotect(lock, area) /* nop */

struct stats {
	pthread_mutex_t lock;
	long hits, misses;
};

static struct stats st;

static void stats_setup(struct stats *sp)
{
	pthread_mutex_init(&sp->lock, NULL);
	lock_protect(&sp->lock, &sp->hits, sizeof(sp->hits));
}

static void stats_teardown(struct stats *sp)
{
	lock_unprotect(&sp->lock, &sp->hits);
	pthread_mutex_destroy(&sp->lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 30000; i++) {
		pthread_mutex_lock(&st.lock);
		if ((i + id) % 3)
			st.hits++;
		else
			st.misses++;
		pthread_mutex_unlock(&st.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	stats_setup(&st);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld misses %ld\n", st.hits, st.misses);
	stats_teardown(&st);
	return st.hits + st.misses == 120000 ? 0 : 1;
}
