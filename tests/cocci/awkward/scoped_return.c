/* SPDX-License-Identifier: MIT */
/* A guard(m) block macro whose body returns: the return skips the
   macro's unlock (the loops never come round again), so the lock stays
   held and the caller releases it.  Such a section cannot move to a
   server; it is held in place, with the return still skipping the
   unlock. */
/* expect: held returns with the lock held */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ITEMS 300

#define guard(m) \
	for (int g1_ = 0; g1_ ? (pthread_mutex_unlock(m), 0) \
			      : (pthread_mutex_lock(m), 1); g1_ = 1) \
		for (int g2_ = 0; !g2_; g2_ = 1)

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static int queue_len, taken, full_hits;

/* Returns 1 with qlock still held when the queue is full. */
static int push(void)
{
	guard(&qlock) {
		if (queue_len >= 10)
			return 1;
		queue_len++;
	}
	return 0;
}

static void *producer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ITEMS; i++) {
		if (push()) {
			full_hits++;
			queue_len -= 5;
			taken += 5;
			pthread_mutex_unlock(&qlock);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("pushed %d\n", taken + queue_len + full_hits);
	return taken + queue_len + full_hits == THREADS * ITEMS ? 0 : 1;
}
