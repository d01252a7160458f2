/* SPDX-License-Identifier: MIT */
/* privoxy's jcc.c: the lock wrappers take the mutex, and on failure
   report through the program's logger unless the mutex is the logger's
   own, then exit: `if (mutex != &log_mutex) log_error(...); exit(1);`.
   The test before the no-return call made the wrappers unrecognised, so
   every lock of the program was refused (its sections were not even
   found).  Now the wrappers are wrappers: the hot lock's sections are
   delegated, and the logger's mutex, whose address the wrappers'
   failure branch compares, stays POSIX with that use as its reason. */
/* expect: refused used outside lock/unlock/init/destroy/condition calls */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef pthread_mutex_t guard_t;

static guard_t log_guard = PTHREAD_MUTEX_INITIALIZER;
static guard_t tally_guard = PTHREAD_MUTEX_INITIALIZER;
static long tally, lines;

static void complain(const char *what, int err)
{
	fprintf(stderr, "%s failed: %s\n", what, strerror(err));
}

void guard_enter(guard_t *g)
{
	int err = pthread_mutex_lock(g);

	if (err) {
		if (g != &log_guard)
			complain("locking", err);
		exit(1);
	}
}

void guard_leave(guard_t *g)
{
	int err = pthread_mutex_unlock(g);

	if (err) {
		if (g != &log_guard)
			complain("unlocking", err);
		exit(1);
	}
}

static void *worker(void *arg)
{
	long mine = 0;

	(void)arg;
	for (int i = 0; i < 50000; i++) {
		guard_enter(&tally_guard);
		tally++;
		mine++;
		guard_leave(&tally_guard);
		if (i % 500 == 0) {
			guard_enter(&log_guard);
			lines++;
			guard_leave(&log_guard);
		}
	}
	return mine == 50000 ? NULL : "lost";
}

int main(void)
{
	pthread_t t[4];
	int bad = 0;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	printf("tally %ld lines %ld\n", tally, lines);
	return bad || tally != 200000 || lines != 400;
}
