/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A config value copied out of shared state into a buffer
 * declared in the section and parsed there with strtol(buf, &end, 10);
 * the end pointer (the unit suffix) is examined after the unlock.
 * The defect it guards against: strtol is in the list of library calls that "forget"
 * the array they are given (safety._NO_RETAIN), but its endptr argument
 * keeps a pointer into it.  'buf' moves into the extracted function and
 * 'end' comes back pointing into its dead frame: expected "unit 'kb'",
 * the rewritten program printed "unit 'ZZ'" (posix and mcs here; garbage under rcl
 * whenever the server runs another section).  Same for strtoul, strtoll,
 * strtoull, strtod (all listed). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static char cfg_value[32] = "1234kb";

__attribute__((noinline)) static void scribble(void)
{
	volatile char junk[512];
	for (int i = 0; i < 512; i++)
		junk[i] = 'Z';
	(void)junk;
}

int main(void)
{
	char *end;
	long v;

	pthread_mutex_lock(&cfg_lock);
	char buf[32];
	memcpy(buf, cfg_value, sizeof buf);
	v = strtol(buf, &end, 10);
	pthread_mutex_unlock(&cfg_lock);
	scribble();
	printf("v %ld unit '%c%c'\n", v, end[0], end[1]);
	return end[0] == 'k' ? 0 : 1;
}
