/* SPDX-License-Identifier: MIT */
/* A logger: va_list parameters formatted under the lock (the va_list is
 * the caller's, reached through the pointer a va_list parameter is), a
 * va_list local doing the same, and one section that pulls arguments
 * with va_arg() itself, which stays where it is. */
/* expect: held va_arg() in the section */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define IT 250

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char ring[8][64];
static unsigned head;
static long chars;
static long sum;

static void vlogmsg(const char *fmt, va_list ap)
{
	pthread_mutex_lock(&log_lock);
	chars += vsnprintf(ring[head++ % 8], sizeof ring[0], fmt, ap);
	pthread_mutex_unlock(&log_lock);
}

static void vcount(va_list args)
{
	char tmp[64];

	pthread_mutex_lock(&log_lock);
	chars += vsnprintf(tmp, sizeof tmp, "%d:%s", args);
	pthread_mutex_unlock(&log_lock);
}

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg(fmt, ap);
	va_end(ap);
}

static void count(int dummy, ...)
{
	va_list ap;

	va_start(ap, dummy);
	vcount(ap);
	va_end(ap);
}

static void logdirect(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&log_lock);
	chars += vsnprintf(ring[head++ % 8], sizeof ring[0], fmt, ap);
	pthread_mutex_unlock(&log_lock);
	va_end(ap);
}

static void add_all(int n, ...)
{
	va_list ap;

	va_start(ap, n);
	pthread_mutex_lock(&log_lock);
	while (n-- > 0)
		sum += va_arg(ap, int);
	pthread_mutex_unlock(&log_lock);
	va_end(ap);
}

static void *worker(void *arg)
{
	long w = (long)arg;

	for (int i = 0; i < IT; i++) {
		logmsg("w%ld i%d %s", w, i, i % 2 ? "odd" : "even");
		count(0, i, "xy");
		logdirect("%c%d", 'a' + (int)w, i % 10);
		add_all(3, (int)w, i, 1);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NT];
	long expect = 0;

	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (long w = 0; w < NT; w++)
		for (int i = 0; i < IT; i++) {
			char tmp[64];
			expect += snprintf(tmp, sizeof tmp, "w%ld i%d %s", w, i,
					   i % 2 ? "odd" : "even");
			expect += snprintf(tmp, sizeof tmp, "%d:xy", i);
			expect += 2;
		}
	printf("chars %ld sum %ld head %u\n", chars, sum, head);
	return chars == expect && sum == NT * (IT * (IT - 1) / 2 + IT) +
		IT * (NT * (NT - 1) / 2) ? 0 : 1;
}
