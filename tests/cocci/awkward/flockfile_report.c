/* SPDX-License-Identifier: MIT */
/* expect: held streams' locks */
/* A report writer keeps its multi-line records together with
   flockfile(stdout); while it holds the stream, it reads a counter under
   a mutex and prints it.  Moved to another thread, that print would wait
   for the stream lock its own caller holds. */
#include <pthread.h>
#include <stdio.h>

#define NT 3
#define IT 200

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long events, reports;

static void note_event(void)
{
	pthread_mutex_lock(&stats_lock);
	events++;
	pthread_mutex_unlock(&stats_lock);
}

static void print_record(FILE *out, long seq)
{
	flockfile(out);
	fputs("-- record\n", out);
	pthread_mutex_lock(&stats_lock);
	reports++;
	fprintf(out, "record %ld of %lu\n", seq, reports);
	pthread_mutex_unlock(&stats_lock);
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
			print_record(stdout, i);
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
