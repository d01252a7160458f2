/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* syslog-style logger: a global lock around writes to a FILE*, a varargs
   front end, and an error variant that appends strerror via "%m" / perror */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_fp;
static unsigned long nlines, nerrors;

static void vlogf(int is_err, const char *fmt, va_list ap)
{
	char msg[256];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	pthread_mutex_lock(&log_lock);
	nlines++;
	if (is_err) {
		nerrors++;
		fprintf(log_fp, "error: %s: %m\n", msg);
	} else {
		fprintf(log_fp, "info: %s\n", msg);
	}
	pthread_mutex_unlock(&log_lock);
}

static void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlogf(0, fmt, ap);
	va_end(ap);
}

static void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_error(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	va_start(ap, fmt);
	errno = saved;
	vlogf(1, fmt, ap);
	va_end(ap);
}

static void *thr(void *arg)
{
	long id = (long)arg;
	int i, fd;
	char path[64];
	for (i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "/nonexistent-%ld/%d", id, i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			log_error("cannot open %s", path);
		else
			close(fd);
		log_info("thread %ld step %d", id, i);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	long i, enoent = 0;
	char line[256];
	log_fp = tmpfile();
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thr, (void *)i);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	rewind(log_fp);
	while (fgets(line, sizeof(line), log_fp))
		enoent += strstr(line, ": No such file or directory") != NULL;
	printf("lines=%lu errors=%lu enoent=%ld\n", nlines, nerrors, enoent);
	return enoent == 150 ? 0 : 1;
}
