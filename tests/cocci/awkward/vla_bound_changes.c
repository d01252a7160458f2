/* SPDX-License-Identifier: MIT */
/* A variable-length buffer filled under the lock.  Its bound is read
   where it is declared; the extracted function would write its type
   again (`char (*buf)[width + 1]`) and compute the bound a second time,
   on the server, after `width` changed (and call slot_size() again).
   Such a section is held. */
/* expect: held is a variable-length array */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 500

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int width = 16;
static long bytes, asked;

static int slot_size(void)
{
	asked++;
	return 8;
}

static long fill(void)
{
	char buf[width + 1];

	width = 4;
	pthread_mutex_lock(&m);
	memset(buf, 'x', sizeof buf);
	bytes += (long)sizeof buf;
	pthread_mutex_unlock(&m);
	buf[sizeof buf - 1] = 0;
	return (long)strlen(buf);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < IT; i++) {
		pthread_mutex_lock(&m);
		{
			char slot[slot_size()];

			memset(slot, 0, sizeof slot);
			bytes += (long)sizeof slot;
		}
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long first = fill(), second = fill();

	for (int i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("first %ld second %ld bytes %ld asked %ld\n", first, second,
	       bytes, asked);
	return 0;
}
