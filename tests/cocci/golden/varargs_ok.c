/* Golden: a section that reads the caller's variadic arguments (memcached's
 * logger) cannot run on a server thread: it is held, in place. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char line[256];

void log_line(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_lock);
}
