/*
 * Thread arguments that point at the program's locks: each worker gets a
 * structure holding `pthread_mutex_t *lock` (the shared tally's mutex)
 * and `pthread_mutex_t *row_lock` (the mutex of its row, one of a striped
 * array), the usual way to hand a thread "its" lock.  The workers lock
 * through the pointers, wait on a condition through one, and main locks
 * the same mutexes by name; a reporter's argument is filled by a
 * designated initialiser.  A pointer field that is only ever given the
 * address of one lock is that lock: both change type together, and the
 * sections through the pointer are delegated.
 */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define ROWS 4
#define WORKERS 4
#define ROUNDS 5000

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tally_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t row_locks[ROWS];
static long tally, rows[ROWS];
static int started;

struct worker_arg {
	int id;
	pthread_mutex_t *lock;
	pthread_mutex_t *row_lock;
	long *row;
};

struct report_arg {
	pthread_mutex_t *lock;
	long *seen;
};

static void *reporter(void *p)
{
	struct report_arg *r = p;

	for (int i = 0; i < 100; i++) {
		pthread_mutex_lock(r->lock);
		if (tally > *r->seen)
			*r->seen = tally;
		pthread_mutex_unlock(r->lock);
	}
	return NULL;
}

static void *worker(void *p)
{
	struct worker_arg *w = p;

	pthread_mutex_lock(w->lock);
	started++;
	while (started < WORKERS)
		pthread_cond_wait(&tally_cv, w->lock);
	pthread_cond_broadcast(&tally_cv);
	pthread_mutex_unlock(w->lock);
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(w->row_lock);
		*w->row += w->id + 1;
		pthread_mutex_unlock(w->row_lock);
		pthread_mutex_lock(w->lock);
		tally++;
		pthread_mutex_unlock(w->lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[WORKERS], rep;
	struct worker_arg args[WORKERS];
	long sum = 0, seen = 0;
	struct report_arg ra = { .lock = &tally_lock, .seen = &seen };

	for (int r = 0; r < ROWS; r++)
		pthread_mutex_init(&row_locks[r], NULL);
	for (int i = 0; i < WORKERS; i++) {
		args[i].id = i;
		args[i].lock = &tally_lock;
		args[i].row_lock = &row_locks[i % ROWS];
		args[i].row = &rows[i % ROWS];
		pthread_create(&th[i], NULL, worker, &args[i]);
	}
	pthread_create(&rep, NULL, reporter, &ra);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	pthread_join(rep, NULL);
	pthread_mutex_lock(&tally_lock);
	for (int r = 0; r < ROWS; r++) {
		pthread_mutex_lock(&row_locks[r]);
		sum += rows[r];
		pthread_mutex_unlock(&row_locks[r]);
	}
	printf("tally %ld, rows %ld, reporter %s\n", tally, sum,
	       seen <= tally ? "consistent" : "ahead");
	pthread_mutex_unlock(&tally_lock);
	for (int r = 0; r < ROWS; r++)
		pthread_mutex_destroy(&row_locks[r]);
	return 0;
}
