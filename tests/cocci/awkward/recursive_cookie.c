/* SPDX-License-Identifier: MIT */
/* expect: held may call back into the program */
/* A logger writes through a stream made with fopencookie(): the stream's
   write function counts bytes under the same recursive mutex that the
   caller holds around its fprintf().  The C library calls back into the
   program from inside the section, which stays in its thread: the mutex
   stays recursive, a liblock lock of that type. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t log_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static size_t bytes;
static char sink[1 << 16];

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	pthread_mutex_lock(&log_mu);
	if (bytes + n <= sizeof(sink))
		memcpy(sink + bytes, buf, n);
	bytes += n;
	pthread_mutex_unlock(&log_mu);
	return (ssize_t)n;
}

static FILE *log_open(void)
{
	cookie_io_functions_t io = { .write = count_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

static void log_event(FILE *f, int id)
{
	pthread_mutex_lock(&log_mu);
	fprintf(f, "event %d\n", id);
	pthread_mutex_unlock(&log_mu);
}

static void *worker(void *arg)
{
	FILE *f = arg;
	int i;

	for (i = 0; i < 200; i++)
		log_event(f, i);
	return NULL;
}

int main(void)
{
	FILE *f = log_open();
	pthread_t th[2];
	int i;

	if (!f)
		return 1;
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, f);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	fclose(f);
	printf("bytes %zu\n", bytes);
	return bytes == 2 * (10 * 8 + 90 * 9 + 100 * 10) ? 0 : 1;
}
