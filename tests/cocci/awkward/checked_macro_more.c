/* SPDX-License-Identifier: MIT */
/* expect: refused lock macro LOCK_COUNTED() is not understood */
/* A lock macro that does more than check the call: it counts the
   acquisitions once the lock is taken.  On the server thread the count
   would move with the section, so the macro is not a lock call, and its
   lock stays POSIX with the reason.  Its neighbour, a lock macro that
   only checks, is converted. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long nlocked;

#define LOCK_COUNTED(m) do {						\
	if (pthread_mutex_lock(m) != 0)					\
		abort();						\
	nlocked++;							\
} while (0)
#define UNLOCK_CHECKED(m) do {						\
	if (pthread_mutex_unlock(m) != 0)				\
		abort();						\
} while (0)
#define LOCK_CHECKED(m) do {						\
	if (pthread_mutex_lock(m) != 0)					\
		abort();						\
} while (0)

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[16], hist[4];

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < 10000; i++) {
		LOCK_COUNTED(&table_lock);
		table[(i + id) % 16] += i % 5;
		UNLOCK_CHECKED(&table_lock);
		LOCK_CHECKED(&hist_lock);
		hist[i % 4]++;
		UNLOCK_CHECKED(&hist_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long i, sum = 0;

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 16; i++)
		sum += table[i];
	printf("sum %ld locked %ld hist %ld %ld %ld %ld\n", sum, nlocked,
	       hist[0], hist[1], hist[2], hist[3]);
	return 0;
}
