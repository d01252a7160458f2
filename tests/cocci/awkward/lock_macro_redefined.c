/* SPDX-License-Identifier: MIT */
/* expect: refused has definitions that lock different locks */
/* squeezelite's shape: stream.c and output.c each `#define LOCK()` on
   their own buffer's mutex (here one file, with an #undef between the
   two).  The later definition was read at every use, so the stream's
   section ran on the output buffer's lock: while main() held the output
   lock, the stream thread waited for it (1 -> 1 instead of 1 -> 2).  A
   use does not say which definition it expands: refused, both locks
   stay POSIX.  (Found by probing with squeezelite's shapes.) */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
struct buffer { unsigned used; pthread_mutex_t mutex; };
static struct buffer sbuf = { 0, PTHREAD_MUTEX_INITIALIZER };
static struct buffer obuf = { 0, PTHREAD_MUTEX_INITIALIZER };
struct buffer *streambuf = &sbuf, *outputbuf = &obuf;

/* ---- stream part ---- */
#define LOCK()   pthread_mutex_lock(&streambuf->mutex)
#define UNLOCK() pthread_mutex_unlock(&streambuf->mutex)
static void *stream_add(void *arg) { LOCK(); streambuf->used += 1; UNLOCK(); return arg; }
#undef LOCK
#undef UNLOCK

/* ---- output part ---- */
#define LOCK()   pthread_mutex_lock(&outputbuf->mutex)
#define UNLOCK() pthread_mutex_unlock(&outputbuf->mutex)
static void output_take(void) { LOCK(); }            /* unlocked elsewhere */
static void output_give(void) { UNLOCK(); }

/* streambuf->used, read under its own lock (not the macro's) */
static unsigned stream_used(void)
{
	unsigned n;

	pthread_mutex_lock(&streambuf->mutex);
	n = streambuf->used;
	pthread_mutex_unlock(&streambuf->mutex);
	return n;
}

int main(void)
{
	pthread_t t;
	unsigned before;
	int waited = 0;

	pthread_create(&t, NULL, stream_add, NULL);
	pthread_join(t, NULL);          /* the stream lock is free again */
	output_take();                  /* main holds only the OUTPUT lock */
	before = stream_used();
	pthread_create(&t, NULL, stream_add, NULL);
	/* stream_add() needs only the stream lock: it ends at once (10 s
	 * at most; with the output lock's section it would never) */
	while (stream_used() == before && waited++ < 1000)
		usleep(10000);
	printf("while output locked: stream used %u -> %u\n", before,
	       stream_used());
	output_give();
	pthread_join(t, NULL);
	return 0;
}
