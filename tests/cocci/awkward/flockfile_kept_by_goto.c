/* SPDX-License-Identifier: MIT */
/* expect: held streams' locks */
/* begin_record() locks stdout and, for a batch, jumps past its
   funlockfile(): the caller keeps the stream, counts the record under
   rec_lock, and unlocks it later.  That caller holds stdout while it
   waits for rec_lock.  With both locks on one server, a section of
   stats_lock that prints to stdout would wait on the server thread for
   that caller, which waits for the server: for ever.  The goto leaves the
   span from flockfile() to funlockfile() with the stream held, so that
   span does not show the stream is held only while its thread waits for
   nothing: the printing section is held. */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 200

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long events, records;

static int begin_record(FILE *out, int batch)
{
	flockfile(out);
	if (batch)
		goto keep;
	funlockfile(out);
	return 0;
keep:
	return 1;
}

static void note_event(void)
{
	pthread_mutex_lock(&stats_lock);
	events++;
	if (events % 100 == 0)
		printf("milestone %lu\n", events);
	pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg)
{
	long me = (long)arg;

	for (int i = 0; i < IT; i++) {
		if (me == 0 && i % 50 == 0 && begin_record(stdout, 1)) {
			pthread_mutex_lock(&rec_lock);
			records++;
			pthread_mutex_unlock(&rec_lock);
			funlockfile(stdout);
		}
		note_event();
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	fflush(stdout);
	fprintf(stderr, "events %lu records %lu\n", events, records);
	return events == NT * IT && records == IT / 50 ? 0 : 1;
}
