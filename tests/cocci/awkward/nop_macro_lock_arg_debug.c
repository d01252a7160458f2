/* SPDX-License-Identifier: MIT */
/* unbound's lock_protect() again, with its checked-locks definition in
   an #ifdef the tool cannot decide (no -D or -U given): that definition
   hands the lock's address to a function, so the lock counts as used
   there and stays POSIX; only a macro that drops the argument in every
   definition it may have leaves the lock free to move. */
/* expect: refused used outside lock/unlock */
#include <pthread.h>
#include <stdio.h>

#ifdef USE_LOCK_CHECKS
void check_protect(void *lock, void *area, size_t size);
#define lock_protect(lock, area, size) check_protect(lock, area, size)
#else
#define lock_protect(lock, area, size) /* nop */
#endif

struct stats {
	pthread_mutex_t lock;
	long hits;
};

static struct stats st;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 30000; i++) {
		pthread_mutex_lock(&st.lock);
		st.hits++;
		pthread_mutex_unlock(&st.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	pthread_mutex_init(&st.lock, NULL);
	lock_protect(&st.lock, &st.hits, sizeof(st.hits));
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld\n", st.hits);
	pthread_mutex_destroy(&st.lock);
	return st.hits == 120000 ? 0 : 1;
}
