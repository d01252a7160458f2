/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* squeezelite's shape: a local written inside IF_DIRECT( ... ), a macro
   whose argument is statements, in a section; the local travels by
   pointer.  The write was left as written, `wp = outputbuf->writep;`,
   which overwrote the pointer the extracted function was given: the
   caller printed "none none none" instead of "zero one two".  (Found by
   probing with squeezelite's shapes.) */
#include <pthread.h>
#include <stdio.h>
#define IF_DIRECT(x) { x }
struct buffer { void *writep; pthread_mutex_t mutex; };
static char data[3][6] = { "zero", "one", "two" };
static struct buffer ob = { data[0], PTHREAD_MUTEX_INITIALIZER };
static struct buffer *outputbuf = &ob;
static int verbose;                      /* 0: the branch below never runs */
static int seen;
int main(void) {
	for (int n = 0; n < 3; n++) {   /* the section uses one local: wp */
		char *wp = "none";
		pthread_mutex_lock(&outputbuf->mutex);
		IF_DIRECT(
			wp = outputbuf->writep;
		);
		if (verbose && wp) seen++;
		outputbuf->writep = data[(seen + 1) % 3];
		seen++;
		pthread_mutex_unlock(&outputbuf->mutex);
		printf("%s ", wp);
	}
	printf("\n");                        /* original: zero one two */
	return 0;
}
