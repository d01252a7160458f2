/* SPDX-License-Identifier: MIT */
/* expect: held a variable with __attribute__((cleanup)) declared in the section */
/* Systemd style, a _cleanup_free_ local (__attribute__((cleanup)))
 * declared before the section, assigned and read inside it, and
 * otherwise consumed only by its cleanup function when the function
 * returns.
 * The defect it guards against: the cleanup's implicit use at the end of the scope
 * (freep(&copy)) is not counted as a use after the section, so 'copy' is
 * copied in but not back: the caller's 'copy' stays NULL, the strdup'd
 * string leaks and the cleanup sees NULL.  Expected "freed 10" (of the
 * snapshots), the rewritten program printed "freed 0" (every algorithm).  (The documented hold for cleanup
 * variables concerns ones declared inside the section; when the section
 * does not read the variable, gcc's set-but-unused warning holds it.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long freed_nonnull;
static void freep(char **p)
{
	if (*p)
		freed_nonnull++;
	free(*p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char current[32] = "state-A";
static long snapshots;

static void snapshot(int tag)
{
	_cleanup_free_ char *copy = NULL;
	pthread_mutex_lock(&m);
	copy = strdup(current);
	snapshots += copy[0] == 0;
	current[6] = (char)('A' + tag % 26);
	snapshots++;
	pthread_mutex_unlock(&m);
}

/* Declared in the section: its cleanup runs where its block ends, after
   the unlock; extracted, it would run inside the section.  Held. */
static long lens;

static void measure(void)
{
	pthread_mutex_lock(&m);
	_cleanup_free_ char *dup = strdup(current);
	lens += (long)strlen(dup);
	pthread_mutex_unlock(&m);
}

int main(void)
{
	for (int i = 0; i < 10; i++) {
		snapshot(i);
		measure();
	}
	printf("snapshots %ld freed %ld lens %ld\n", snapshots, freed_nonnull,
	       lens);
	return freed_nonnull == 20 ? 0 : 1;
}
