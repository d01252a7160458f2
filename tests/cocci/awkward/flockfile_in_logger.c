/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* The section logs through a helper that holds stderr for one message,
   flockfile() to funlockfile(), and takes no lock meanwhile (nbdkit's
   log_stderr_verror()).  On the server thread the helper takes and gives
   back the stream as on its caller's: nothing is left held, and no thread
   holding a stream waits for the server. */
#include <pthread.h>
#include <stdio.h>
#include <stdarg.h>

#define NT 4
#define IT 500

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[16], added;

static void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	flockfile(stderr);
	fputs("table: ", stderr);
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
