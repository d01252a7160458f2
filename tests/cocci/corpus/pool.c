/* SPDX-License-Identifier: MIT */
/*
 * Behaviour corpus: a thread pool shaped like zstd's lib/common/pool.c.
 * Its mutex, condition variables and their types are used through macros;
 * a worker's section ends inside the block after its wait loop, where it
 * declares the job it pops, and leaves early on shutdown; a logging macro
 * is used as a statement without ';'; a section returns a value declared
 * in a nested block, and one declares a value only an assert() reads.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define P_mutex_t pthread_mutex_t
#define P_mutex_init(a, b) pthread_mutex_init((a), (b))
#define P_mutex_lock(a) pthread_mutex_lock((a))
#define P_mutex_unlock(a) pthread_mutex_unlock((a))
#define P_cond_t pthread_cond_t
#define P_cond_init(a, b) pthread_cond_init((a), (b))
#define P_cond_wait(a, b) pthread_cond_wait((a), (b))
#define P_cond_signal(a) pthread_cond_signal((a))
#define P_cond_broadcast(a) pthread_cond_broadcast((a))
#define LOG(...) do { if (0) fprintf(stderr, __VA_ARGS__); } while (0);

#define CAP 4
#define NWORKERS 3
#define JOBS 600

typedef struct {
	void (*fn)(long);
	long arg;
} job_t;

typedef struct {
	P_mutex_t mutex;
	P_cond_t pop_cond, push_cond;
	job_t queue[CAP];
	unsigned head, tail, busy;
	int shutdown;
} pool_t;

static pool_t pool;
static long results[JOBS];

static void square(long i)
{
	results[i] = i * i;
}

static void *worker(void *opaque)
{
	pool_t *const p = opaque;
	long done = 0;

	for (;;) {
		P_mutex_lock(&p->mutex);
		while (p->head == p->tail) {
			if (p->shutdown) {
				P_mutex_unlock(&p->mutex);
				return (void *)done;
			}
			P_cond_wait(&p->pop_cond, &p->mutex);
		}
		{	job_t const job = p->queue[p->head % CAP];
			p->head++;
			p->busy++;
			LOG("popped %u\n", p->head)
			P_cond_signal(&p->push_cond);
			P_mutex_unlock(&p->mutex);

			job.fn(job.arg);
			done++;

			P_mutex_lock(&p->mutex);
			p->busy--;
			P_cond_signal(&p->push_cond);
			P_mutex_unlock(&p->mutex);
		}
	}
}

static void push(pool_t *p, job_t job)
{
	P_mutex_lock(&p->mutex);
	while (p->tail - p->head == CAP)
		P_cond_wait(&p->push_cond, &p->mutex);
	p->queue[p->tail++ % CAP] = job;
	unsigned const queued = p->tail - p->head;
	P_cond_signal(&p->pop_cond);
	P_mutex_unlock(&p->mutex);
	assert(queued <= CAP);
}

typedef struct {
	unsigned head, busy;
} snapshot_t;

static int snapshot(pool_t *p, snapshot_t *out)
{
	P_mutex_lock(&p->mutex);
	if (p->head) {
		snapshot_t const snap = { p->head, p->busy };
		P_mutex_unlock(&p->mutex);
		*out = snap;
		return 1;
	}
	P_mutex_unlock(&p->mutex);
	return 0;
}

static void finish(pool_t *p)
{
	P_mutex_lock(&p->mutex);
	while (p->head != p->tail || p->busy)
		P_cond_wait(&p->push_cond, &p->mutex);
	p->shutdown = 1;
	P_cond_broadcast(&p->pop_cond);
	P_mutex_unlock(&p->mutex);
}

int main(void)
{
	pthread_t tid[NWORKERS];
	long done = 0, sum = 0;
	int i;

	if (P_mutex_init(&pool.mutex, NULL) ||
	    P_cond_init(&pool.pop_cond, NULL) ||
	    P_cond_init(&pool.push_cond, NULL))
		return 2;
	for (i = 0; i < NWORKERS; i++)
		if (pthread_create(&tid[i], NULL, worker, &pool))
			return 2;
	for (i = 0; i < JOBS; i++)
		push(&pool, (job_t){ square, i });
	finish(&pool);
	for (i = 0; i < NWORKERS; i++) {
		void *r;

		pthread_join(tid[i], &r);
		done += (long)r;
	}
	snapshot_t snap = { 0, 0 };
	for (i = 0; i < JOBS; i++)
		sum += results[i];
	if (snapshot(&pool, &snap))
		printf("popped %u, busy %u\n", snap.head, snap.busy);
	printf("jobs %ld, sum of squares %ld\n", done, sum);
	return done == JOBS && sum == (long)(JOBS - 1) * JOBS * (2 * JOBS - 1) / 6
		? 0 : 1;
}
