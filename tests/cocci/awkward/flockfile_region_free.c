/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A report writer keeps its multi-line records together with
   flockfile(stderr), and takes no lock while it holds the stream: it
   copies the counters first, under the mutex, and prints the copy.  The
   counting section prints a milestone to stdout.  No thread waits for the
   server while it holds a stream, so the section may run on the server
   thread: its printf() waits at most until the writer goes on by itself.
   (nbdkit's debug_common() so: flockfile, prologue, vfprintf, funlockfile;
   every section that logged was held before.) */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 300

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long events, reports;

static void note_event(void)
{
	pthread_mutex_lock(&stats_lock);
	events++;
	if (events % 100 == 0)
		printf("milestone %lu\n", events);
	pthread_mutex_unlock(&stats_lock);
}

static void print_record(FILE *out, long seq)
{
	unsigned long ev, nr;

	pthread_mutex_lock(&stats_lock);
	ev = events;
	nr = ++reports;
	pthread_mutex_unlock(&stats_lock);
	flockfile(out);
	fputs("-- record\n", out);
	fprintf(out, "record %ld: %lu of %lu\n", seq, nr, ev);
	fputs("-- end\n", out);
	funlockfile(out);
}

static void *reporter(void *arg)
{
	long me = (long)arg;
	int i;

	for (i = 0; i < IT; i++) {
		note_event();
		if (me == 0 && i % 50 == 0)
			print_record(stderr, i);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NT];
	long i;

	for (i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, reporter, (void *)i);
	for (i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("events %lu reports %lu\n", events, reports);
	return events == NT * IT && reports == IT / 50 ? 0 : 1;
}
