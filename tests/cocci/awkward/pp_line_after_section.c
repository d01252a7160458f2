/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* Code after a rewritten section that notes its line: the extracted
   functions are inserted above and the sections' calls take more lines
   than the sections did, yet __LINE__ below them, the program's trace
   macro and the C library's assert() (its message, read back from a
   child that fails one) must give the lines of this file.  The lines
   after the sections start inside a comment, a multi-line call, an
   #if 0 group and the #else of a group compiled, where no directive may
   go. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NWORKERS 3
#define ROUNDS 10000
#define TRACE(msg) printf("%s at line %d\n", msg, __LINE__)

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static long total, steps;

static void *worker(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < ROUNDS; i++) {
		long add = i % 7 + n;
		pthread_mutex_lock(&lk);
		total += add;
		if (total > 1000000)
			total -= 1000000;
		steps++;
		pthread_mutex_unlock(&lk);
	}
	return NULL;
}

static int sum_line(int a,
		    int b)
{
	return a + b;
}

static void report(void)
{
	long v, s;

	pthread_mutex_lock(&lk);
	v = total;
	s = steps;
	pthread_mutex_unlock(&lk); /* a comment that
	   spans the line after the section */
	TRACE("report");
	printf("%ld in %ld steps, at line %d\n", v, s, __LINE__);
	pthread_mutex_lock(&lk);
	steps = 0;
	pthread_mutex_unlock(&lk); printf("%d\n",
		sum_line(__LINE__,
			 __LINE__));
	pthread_mutex_lock(&lk);
	steps++;
	pthread_mutex_unlock(&lk);
#if 0
	printf("never\n");
#endif
	printf("after the group: %d\n", __LINE__);
#ifndef NO_STEPS
	pthread_mutex_lock(&lk);
	steps++;
	pthread_mutex_unlock(&lk);
#else
	steps--;
#endif
	printf("after the #else: %d\n", __LINE__);
}

/* assert()'s message names its line: read back from a child. */
static void failed_assert_line(void)
{
	int fd[2];
	char buf[512] = "";
	ssize_t n, got = 0;

	if (pipe(fd) != 0)
		exit(2);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		pthread_mutex_lock(&lk);
		steps++;
		pthread_mutex_unlock(&lk);
		assert(steps == 0);
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	waitpid(pid, NULL, 0);
	const char *at = strstr(buf, ".c:");
	printf("assert at line %d\n", at ? atoi(at + 3) : -1);
}

int main(void)
{
	pthread_t t[NWORKERS];

	TRACE("start");
	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	report();
	fflush(stdout);
	failed_assert_line();
	TRACE("end");
	return 0;
}
