/* SPDX-License-Identifier: MIT */
/* A helper declares the global mutex it releases inside its body,
   `extern pthread_mutex_t log_mu;`, as old code that keeps its globals
   out of headers does.  The lock stays POSIX (the tool converts
   file-scope declarations only), and the reason says so: it used to say
   "a mutex local to its function (automatic storage, one per call)",
   which an extern declaration is not. */
/* expect: refused declared extern inside a function */
#include <pthread.h>
#include <stdio.h>

static long lines;

static void log_release(void)
{
	extern pthread_mutex_t log_mu;

	pthread_mutex_unlock(&log_mu);
}

pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void log_line(void)
{
	pthread_mutex_lock(&log_mu);
	lines++;
	log_release();
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		log_line();
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("lines %ld\n", lines);
	return lines == 60000 ? 0 : 1;
}
