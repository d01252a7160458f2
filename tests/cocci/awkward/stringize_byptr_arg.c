/* SPDX-License-Identifier: MIT */
/* expect: held 'hits', reached by pointer, is in an argument of macro REPORT */
/* A debug macro that prints a variable with its name (#v), handed on by
   REPORT to SHOW_AS.  In count_hits() the local hits is written in the
   section and its address is kept: the extracted function would reach
   it as (*hits), and the macro would print "(*hits)=..."; the section
   stays in place.  In show_total() the local is only read, passed by
   value under its own name, and the section moves. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NWORKERS 3
#define ROUNDS 10000
#define SHOW_AS(buf, name, v) \
	snprintf((buf), sizeof(buf), name "=%ld", (long)(v))
#define REPORT(buf, v) SHOW_AS(buf, #v, v)

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static char hit_line[64], total_line[64];
static __thread long *last_hits; /* per thread: no race */
static long total;

static void count_hits(void)
{
	long hits = 0;

	last_hits = &hits;
	pthread_mutex_lock(&lk);
	hits++;
	total++;
	REPORT(hit_line, hits);
	pthread_mutex_unlock(&lk);
	last_hits = NULL;
}

static void show_total(void)
{
	long seen = 1;

	pthread_mutex_lock(&lk);
	REPORT(total_line, seen);
	pthread_mutex_unlock(&lk);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		count_hits();
		show_total();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("%s %s total=%ld\n", hit_line, total_line, total);
	return strcmp(hit_line, "hits=1") == 0 &&
	       strcmp(total_line, "seen=1") == 0 &&
	       total == (long)NWORKERS * ROUNDS ? 0 : 1;
}
