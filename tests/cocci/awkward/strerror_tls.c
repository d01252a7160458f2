/* SPDX-License-Identifier: MIT */
/* expect: held strerror() */
/* A message from strerror() fetched under the lock and kept in a
 * local for logging after the unlock.
 * The defect it guards against: glibc (>= 2.32) formats "Unknown error N" in a
 * per-thread buffer (like inet_ntoa(), which rcl-refactor does treat as
 * thread-dependent).  Delegated, the section runs strerror() on the RCL
 * server thread, so 'msg' points into the server's buffer; the caller's
 * own later strerror() no longer overwrites it.  Original prints
 * "[Unknown error 2000] [Unknown error 2000]", the rewritten program
 * under LIBLOCK_LOCK=rcl printed "[Unknown error 1001] [Unknown error 2000]".
 * (Conversely, another section on the server would overwrite 'msg' while
 * the caller still uses it.)  strsignal() has the same per-thread buffer. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int last_err = 1000;

/* The string used up inside the section, on the thread that made it:
   delegated. */
static char copied[64];

static void copy_message(int e)
{
	pthread_mutex_lock(&m);
	snprintf(copied, sizeof copied, "%s", strerror(e));
	pthread_mutex_unlock(&m);
}

int main(void)
{
	const char *msg;
	char later[64];

	copy_message(3000);
	pthread_mutex_lock(&m);
	msg = strerror(last_err + 1);
	last_err++;
	pthread_mutex_unlock(&m);
	snprintf(later, sizeof later, "%s", strerror(2000));
	printf("[%s] [%s] [%s]\n", msg, later, copied);
	return strcmp(msg, later) == 0 ? 0 : 1;
}
