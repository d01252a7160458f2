/* SPDX-License-Identifier: MIT */
/* Shape 2 of a trylock section: `if (trylock(&m) != 0) <leave>; BODY
   unlock;`, leaving by return, continue, break or goto, through a macro
   for the trylock, and with a failure block that does some work before
   it leaves.  A log buffer is flushed into a journal by whoever gets its
   lock; the others keep their lines for later.  The values BODY writes
   (the journal position handed back, a flag read after the section)
   must come back only when it ran; the lines counted must balance. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 4000

#define JOURNAL_TRY() pthread_mutex_trylock(&journal_lock)
#define JOURNAL_DONE() pthread_mutex_unlock(&journal_lock)

static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static long journal_lines, journal_flushes, sweeps, closes;

/* return: -1 when busy, else the journal's length after the flush */
static long flush(long *pending)
{
	long at;

	if (pthread_mutex_trylock(&journal_lock))
		return -1;
	journal_lines += *pending;
	journal_flushes++;
	at = journal_lines;
	pthread_mutex_unlock(&journal_lock);
	*pending = 0;
	return at;
}

/* continue: try each of the slots, skip the busy rounds */
static int sweep(int rounds)
{
	int r, done = 0, busy = 0;

	for (r = 0; r < rounds; r++) {
		if (JOURNAL_TRY() != 0) {
			busy++;
			continue;
		}
		sweeps++;
		JOURNAL_DONE();
		done++;
	}
	return done + busy == rounds ? done : -1;
}

/* break and goto */
static int close_book(void)
{
	int tries, closed = 0;

	for (tries = 0; tries < 1000000; tries++) {
		if (0 != pthread_mutex_trylock(&journal_lock))
			goto again;
		closes++;
		closed = 1;
		pthread_mutex_unlock(&journal_lock);
		break;
again:
		;
	}
	return closed;
}

static void *worker(void *arg)
{
	long pending = 0, last = 0, at;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++) {
		pending++;
		if (i % 3 == 0) {
			at = flush(&pending);
			if (at >= 0 && (pending != 0 || at < last))
				return (void *)1;
			if (at >= 0)
				last = at;
		}
		if (i % 500 == 0 && sweep(3) < 0)
			return (void *)2;
	}
	while (pending)
		flush(&pending);
	if (!close_book())
		return (void *)3;
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	void *ret;
	int i, bad = 0;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	bad |= journal_lines != (long)NT * IT || journal_flushes == 0;
	bad |= closes != NT || sweeps > NT * 3 * (IT / 500);
	printf("journal %ld lines, balanced %s\n", journal_lines,
	       bad ? "no" : "yes");
	return bad;
}
