/* SPDX-License-Identifier: MIT */
/* Lock, unlock and wait helpers that take the program's context beside
   the mutex, check pthread's result, and on a failure report through
   the program's own error function and give up with `return false`
   (the caller's result says it failed) instead of ending the process;
   on success they return true.  The callers drop the result.  Locking
   a plain mutex gives 0, so the failure branch never runs: the helpers
   are lock, unlock and wait calls like pthread's. */
/* expect: transformed */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#define NT 4
#define IT 400

struct job_ctx {
	const char *who;
	int errors;
};

#define rarely(x) __builtin_expect(!!(x), 0)

static void report(struct job_ctx *ctx, int line, const char *what)
{
	ctx->errors++;
	fprintf(stderr, "%s: line %d: %s\n", ctx->who, line, what);
}

#define report_and_fail(what, ...)                                            \
	do {                                                                  \
		report(ctx, __LINE__, what);                                  \
		return __VA_ARGS__;                                           \
	} while (0)

static bool take(struct job_ctx *ctx, pthread_mutex_t *m)
{
	if (rarely(pthread_mutex_lock(m)))
		report_and_fail("lock failed", false);
	return true;
}

static bool give(struct job_ctx *ctx, pthread_mutex_t *m)
{
	if (rarely(pthread_mutex_unlock(m)))
		report_and_fail("unlock failed", false);
	return true;
}

static bool wait_on(struct job_ctx *ctx, pthread_cond_t *c,
		    pthread_mutex_t *m)
{
	if (rarely(pthread_cond_wait(c, m)))
		report_and_fail("wait failed", false);
	return true;
}

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static long turn;    /* whose turn it is to append */
static long written; /* sum of what was appended, in order */
static long order_ok = 1;

struct arg {
	struct job_ctx ctx;
	long id;
};

static void *worker(void *p)
{
	struct arg *a = p;
	struct job_ctx *ctx = &a->ctx;
	long i;

	for (i = 0; i < IT; i++) {
		take(ctx, &turn_lock);
		while (turn % NT != a->id)
			wait_on(ctx, &turn_cond, &turn_lock);
		if (written != turn * (turn - 1) / 2)
			order_ok = 0;
		written += turn;
		turn++;
		pthread_cond_broadcast(&turn_cond);
		give(ctx, &turn_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	struct arg args[NT];
	long i, n = (long)NT * IT;
	int errors = 0;

	for (i = 0; i < NT; i++) {
		args[i].ctx.who = "worker";
		args[i].ctx.errors = 0;
		args[i].id = i;
		pthread_create(&t[i], NULL, worker, &args[i]);
	}
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], NULL);
		errors += args[i].ctx.errors;
	}
	printf("turns %ld written %ld in order %ld errors %d\n", turn, written,
	       order_ok, errors);
	return turn == n && written == n * (n - 1) / 2 && order_ok &&
			       errors == 0 ?
		       0 :
		       1;
}
