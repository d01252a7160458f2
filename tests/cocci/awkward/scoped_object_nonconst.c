/* SPDX-License-Identifier: MIT */
/* An object-like scoped lock macro whose `for` head tests what its lock
   wrapper returns, and the wrapper returns pthread's result, not a
   constant: the loop runs the body only when the lock was taken, which
   the tool cannot tell.  Each use is refused, and the queue's mutex
   stays POSIX. */
/* expect: refused object-like macro whose expansion locks */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ITEMS 400

#define QUEUE_LOCKED \
	for (int q_rc_ = queue_lock(); q_rc_ == 0; q_rc_ = queue_unlock() + 1)

static struct queue {
	pthread_mutex_t mu;
	int items[THREADS * ITEMS];
	int n;
} queue = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };

static int queue_lock(void)
{
	int rc = pthread_mutex_lock(&queue.mu);

	return rc;
}

static int queue_unlock(void)
{
	int rc = pthread_mutex_unlock(&queue.mu);

	return rc;
}

static void *filler(void *arg)
{
	int base = (int)(long)arg, i;

	for (i = 0; i < ITEMS; i++) {
		QUEUE_LOCKED { queue.items[queue.n++] = base + i; }
	}
	return NULL;
}

int main(void)
{
	pthread_t th[THREADS];
	long sum = 0, want = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, filler, (void *)(long)(i * ITEMS));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	QUEUE_LOCKED {
		for (i = 0; i < queue.n; i++)
			sum += queue.items[i];
	}
	for (i = 0; i < THREADS * ITEMS; i++)
		want += i;
	printf("items %d sum %ld\n", queue.n, sum);
	return sum == want ? 0 : 1;
}
