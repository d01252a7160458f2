/* SPDX-License-Identifier: MIT */
/* expect: held flockfile() */
/* The section logs through a helper that holds stderr for one message
   and, while it holds it, takes a mutex for the message's sequence
   number.  A thread in that helper holds the stream and may wait for a
   lock the server serves: on the server thread, the section's message
   could wait for that stream for ever.  Held. */
#include <pthread.h>
#include <stdio.h>
#include <stdarg.h>

#define NT 4
#define IT 500

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[16], added;
static pthread_mutex_t seq_lock = PTHREAD_MUTEX_INITIALIZER;
static long seq;

static void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	flockfile(stderr);
	pthread_mutex_lock(&seq_lock);
	fprintf(stderr, "%ld table: ", ++seq);
	pthread_mutex_unlock(&seq_lock);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(ap);
}

static void put(int slot, long v)
{
	pthread_mutex_lock(&table_lock);
	table[slot] += v;
	added += v;
	if (table[slot] > 10000) {
		log_msg("slot %d passes 10000", slot);
		table[slot] = 0;
	}
	pthread_mutex_unlock(&table_lock);
}

static void *worker(void *arg)
{
	long me = (long)arg;

	for (int i = 0; i < IT; i++)
		put((int)((me + i) % 16), i);
	return NULL;
}

int main(void)
{
	pthread_t th[NT];

	for (long i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	printf("added %ld\n", added);
	return 0;
}
