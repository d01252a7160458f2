/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* squeezelite's output thread: IF_DIRECT( x ) and IF_PROCESS( x ) are
   `{ x }`, macros whose argument is statements, and the section writes
   locals there.  Coccinelle does not read inside such an argument, so
   those writes were left as written: a local passed by pointer had the
   pointer itself overwritten (the caller printed "none"), another was
   never copied back, and one used only there was not passed at all.
   (Found by probing with squeezelite's shapes.) */
#include <pthread.h>
#include <stdio.h>

#define IF_DIRECT(x) { x }
#define IF_PROCESS(x) { x }

struct buffer {
	void *writep;
	unsigned space;
	pthread_mutex_t mutex;
};

static char frames_of[3][6] = {"zero", "one", "two"};
static struct buffer ob = {frames_of[0], 7, PTHREAD_MUTEX_INITIALIZER};
static struct buffer *outputbuf = &ob;
static unsigned frames = 3;

static void *output_thread(void *arg)
{
	int verbose = arg != NULL;

	for (int n = 0; n < 3; n++) {
		char *wp = "none";
		unsigned min_space = 99, used;

		pthread_mutex_lock(&outputbuf->mutex);
		IF_DIRECT(
			wp = outputbuf->writep;
			min_space = 0;
			if (outputbuf->space > frames)
				min_space = outputbuf->space - frames;
		);
		IF_PROCESS( used = frames * 2; );
		if (verbose && wp)
			printf("(direct) ");
		outputbuf->writep = frames_of[(n + 1) % 3];
		outputbuf->space += n;
		pthread_mutex_unlock(&outputbuf->mutex);
		printf("%s %u %u\n", wp, min_space, used);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, output_thread, NULL);
	pthread_join(t, NULL);
	return 0;
}
