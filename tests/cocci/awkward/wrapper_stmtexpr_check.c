/* SPDX-License-Identifier: MIT */
/* Lock and unlock functions whose checks are statement macros built on
 * GCC's statement expressions, `(void) ({ ... })`, the way Tor's
 * STMT_BEGIN/STMT_END are under GCC: an assertion on the argument, then
 * the call, then a fatal-error macro that reports and aborts when the
 * call fails.  Every mutex here is a default (non-recursive) one, so the
 * functions are plain lock wrappers. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CHK_BEGIN (void)({
#define CHK_END })
#define LIKELY_NOT(x) __builtin_expect(!!(x), 0)

static void fatal_report(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: %s\n", file, line, what);
}

#define must_hold(e)                                                          \
	CHK_BEGIN if (!(e))                                                   \
	{                                                                     \
		fatal_report(__FILE__, __LINE__, #e);                         \
		abort();                                                      \
	}                                                                     \
	CHK_END
#define unreachable_msg(m)                                                    \
	CHK_BEGIN fatal_report(__FILE__, __LINE__, (m));                      \
	abort();                                                              \
	CHK_END

typedef struct guard {
	pthread_mutex_t mutex;
} guard_t;

void guard_acquire(guard_t *g)
{
	int err;
	must_hold(g);
	err = pthread_mutex_lock(&g->mutex);
	if (LIKELY_NOT(err)) {
		unreachable_msg("Error locking a mutex.");
	}
}

void guard_release(guard_t *g)
{
	int err;
	must_hold(g);
	err = pthread_mutex_unlock(&g->mutex);
	if (LIKELY_NOT(err)) {
		unreachable_msg("Error unlocking a mutex.");
	}
}

#define NT 4
#define IT 1000

static guard_t tally_guard = {PTHREAD_MUTEX_INITIALIZER};
static long tally_n, tally_sum;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < IT; i++) {
		guard_acquire(&tally_guard);
		tally_n++;
		tally_sum += id * i;
		guard_release(&tally_guard);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("n=%ld sum=%ld\n", tally_n, tally_sum);
	return tally_n == NT * IT ? 0 : 1;
}
