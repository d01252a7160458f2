/* SPDX-License-Identifier: MIT */
/* A retry loop written with a label and goto: the section reads the
   value its previous run left in a local that has no initialiser.  The
   local must reach the section; copied in, the compiler warns that it
   may be read uninitialised (it cannot see the first run sets it).  The
   section once stayed held for that diagnostic; now the run starts again
   with the local reached by pointer, and the section is delegated. */
/* expect: transformed */
#include <pthread.h>
#include <stdio.h>

#define NT 4
#define IT 300

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long tokens;

static int acquire(int want)
{
	int got, tries = 0;

retry:
	pthread_mutex_lock(&m);
	if (tries == 0)
		got = 0;
	got += want;
	tokens += want;
	pthread_mutex_unlock(&m);
	if (++tries < 3)
		goto retry;
	return got;
}

static void *worker(void *arg)
{
	long bad = 0;
	int i;

	(void)arg;
	for (i = 0; i < IT; i++)
		bad += acquire(2) != 6;
	return (void *)bad;
}

int main(void)
{
	pthread_t t[NT];
	long i, bad = 0;
	void *r;

	for (i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NT; i++) {
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("tokens %ld bad %ld\n", tokens, bad);
	return tokens == 6L * NT * IT && bad == 0 ? 0 : 1;
}
