/* SPDX-License-Identifier: MIT */
/* An initialiser macro that also resets an object by compound literal
 * (`st = (struct stat_block)STAT_BLOCK_INIT;`), outside any declaration.
 * The literal's type names the mutex it initialises again; nothing
 * destroys that mutex, so a reset would leak the liblock lock's memory,
 * and the mutex stays POSIX with the reset named.  (Before the
 * compound literal was read, it stayed POSIX as "a mutex the tool cannot
 * tell".) */
/* expect: refused initialised again by a compound literal */
#include <pthread.h>
#include <stdio.h>

#define STAT_BLOCK_INIT { PTHREAD_MUTEX_INITIALIZER, 0, 0 }

struct stat_block {
	pthread_mutex_t mu;
	unsigned long gets, sets;
};

static struct stat_block st = STAT_BLOCK_INIT;

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&st.mu);
		if (arg)
			st.gets++;
		else
			st.sets++;
		pthread_mutex_unlock(&st.mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, worker, &st);
	pthread_create(&t[1], NULL, worker, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("gets %lu sets %lu\n", st.gets, st.sets);
	st = (struct stat_block)STAT_BLOCK_INIT;
	printf("after reset %lu\n", st.gets + st.sets);
	return 0;
}
