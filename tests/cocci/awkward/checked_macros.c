/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Lock macros that check the call's result, three projects' ways: an
   expression that aborts, a do/while that reports through errno and
   exits, and one that keeps the code in a local and tests it under a
   branch hint.  A plain mutex gives 0, and then each does nothing but
   lock or unlock.  The report shows the counters and that no check
   fired. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define unlikely(x) __builtin_expect(!!(x), 0)

#define MUST_LOCK(m)   ((void)(pthread_mutex_lock(m) == 0 || (abort(), 0)))
#define MUST_UNLOCK(m) ((void)(pthread_mutex_unlock(m) == 0 || (abort(), 0)))

#define Q_LOCK(q) do {						\
	if (pthread_mutex_lock(&(q)->mtx) != 0) {		\
		perror("pthread_mutex_lock: " #q);		\
		exit(EXIT_FAILURE);				\
	}							\
} while (0)
#define Q_UNLOCK(q) do {					\
	if (pthread_mutex_unlock(&(q)->mtx) != 0) {		\
		perror("pthread_mutex_unlock: " #q);		\
		exit(EXIT_FAILURE);				\
	}							\
} while (0)

#define CHECKED_LOCK(m) do {						\
	int lk_err_ = pthread_mutex_lock(m);				\
	if (unlikely(lk_err_ != 0)) {					\
		fprintf(stderr, "lock: %s\n", strerror(lk_err_));	\
		abort();						\
	}								\
} while (0)
#define CHECKED_UNLOCK(m) do {						\
	int lk_err_;							\
	if (unlikely((lk_err_ = pthread_mutex_unlock(m)) != 0)) {	\
		fprintf(stderr, "unlock: %s\n", strerror(lk_err_));	\
		abort();						\
	}								\
} while (0)

struct queue {
	pthread_mutex_t mtx;
	int items[64];
	int n;
	long pushed, popped;
};

static pthread_mutex_t stats_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_mtx = PTHREAD_MUTEX_INITIALIZER;
static long stat_ops, stat_sum;
static char last_line[64];
static struct queue wq = { .mtx = PTHREAD_MUTEX_INITIALIZER };

static int queue_push(struct queue *q, int v)
{
	int ok = 0;

	Q_LOCK(q);
	if (q->n < 64) {
		q->items[q->n++] = v;
		q->pushed++;
		ok = 1;
	}
	Q_UNLOCK(q);
	return ok;
}

static int queue_pop(struct queue *q, int *v)
{
	Q_LOCK(q);
	if (q->n == 0) {
		Q_UNLOCK(q);
		return 0;
	}
	*v = q->items[--q->n];
	q->popped++;
	Q_UNLOCK(q);
	return 1;
}

static void stat_add(int v)
{
	MUST_LOCK(&stats_mtx);
	stat_ops++;
	stat_sum += v;
	MUST_UNLOCK(&stats_mtx);
}

static void log_last(int id, int v)
{
	CHECKED_LOCK(&log_mtx);
	snprintf(last_line, sizeof(last_line), "worker %d saw %d", id, v);
	CHECKED_UNLOCK(&log_mtx);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, i, v;

	for (i = 0; i < 20000; i++) {
		if (queue_push(&wq, i % 100))
			stat_add(0);
		if (queue_pop(&wq, &v)) {
			stat_add(v);
			if (i == 19999 && id == 0)
				log_last(id, -1);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	long i;
	int v;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	while (queue_pop(&wq, &v))
		stat_add(v);
	printf("pushed %ld popped %ld ops %ld sum %ld left %d\n", wq.pushed,
	       wq.popped, stat_ops, stat_sum, wq.n);
	printf("last: %s\n", last_line);
	return 0;
}
