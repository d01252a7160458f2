/* SPDX-License-Identifier: MIT */
/*
 * ll_log(): one write(2) per message, formatted into a stack buffer, no
 * malloc and no stdio, so the preload libraries may log from inside
 * interposed calls.  $LIBLOCK_LOG=debug|info|warn|error sets the threshold
 * (default warn).
 */
#include "ll_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const level_names[] = {"debug", "info", "warning", "error"};

static enum ll_level threshold(void)
{
	static _Atomic int cached = -1;
	int t = atomic_load_explicit(&cached, memory_order_relaxed);
	const char *env;

	if (t >= 0)
		return (enum ll_level)t;
	t = LL_WARN;
	env = getenv("LIBLOCK_LOG");
	if (env) {
		bool known = false;

		for (int i = LL_DEBUG; i <= LL_ERROR; i++)
			if (strcmp(env, level_names[i]) == 0 ||
			    (i == LL_WARN && strcmp(env, "warn") == 0)) {
				t = i;
				known = true;
			}
		if (!known) {
			char buf[256];
			int n = snprintf(buf, sizeof(buf),
					 "librcl: error: LIBLOCK_LOG=%.100s: "
					 "not debug, info, warning or error\n",
					 env);

			if (n > 0 && write(STDERR_FILENO, buf, (size_t)n) < 0)
				n = 0; /* nowhere to say it */
		}
	}
	atomic_store_explicit(&cached, t, memory_order_relaxed);
	return (enum ll_level)t;
}

static void vlog(enum ll_level level, const char *file, int line,
		 const char *fmt, va_list ap)
{
	char buf[512];
	int n, m, cancel_state;
	const char *base = strrchr(file, '/');

	n = snprintf(buf, sizeof(buf), "librcl: %s: ", level_names[level]);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	if (m > 0)
		n = n + m < (int)sizeof(buf) ? n + m : (int)sizeof(buf) - 1;
	if (level >= LL_WARN || threshold() == LL_DEBUG) {
		m = snprintf(buf + n, sizeof(buf) - (size_t)n, " (%s:%d)",
			     base ? base + 1 : file, line);
		if (m > 0)
			n = n + m < (int)sizeof(buf) ? n + m
						     : (int)sizeof(buf) - 1;
	}
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	/* write() is a cancellation point, and the runtime logs while it
	 * holds its own state (a server starting, a lock word): a message
	 * must not end the thread there */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		n = 0; /* nowhere left to report it */
	pthread_setcancelstate(cancel_state, NULL);
}

void ll_log_at(enum ll_level level, const char *file, int line, const char *fmt,
	       ...)
{
	va_list ap;

	if (level < threshold())
		return;
	va_start(ap, fmt);
	vlog(level, file, line, fmt, ap);
	va_end(ap);
}

void ll_fatal_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LL_ERROR, file, line, fmt, ap);
	va_end(ap);
	abort();
}
