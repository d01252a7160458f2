/* SPDX-License-Identifier: MIT */
/*
 * prof_overhead: the cost of one uncontended lock/unlock pair, for
 * `make prof-overhead` (profiler/prof-overhead.sh, docs/PROFILER.md,
 * "Overhead").  One thread takes and releases a private lock PAIRS times;
 * the figure is the thread's CPU time per pair (CPU time rather than wall
 * time: the build machines are shared), the minimum over REPS runs.
 *
 *   prof_overhead [-n PAIRS] [-r REPS] KIND
 *   KIND: mutex, rdlock, wrlock, spin, or tsc (two time-stamp counter
 *   reads, the profiler's clock, instead of a pair)
 *
 *   prof_overhead time COMMAND [ARG...]
 *   runs COMMAND and prints its wall time and its process CPU time (user
 *   + system, from wait4) in seconds: "time WALL CPU".  The script runs
 *   it *under* the profiler (rcl-prof -- prof_overhead time PROGRAM), so
 *   the figures are the profiled program's own, from exec to exit
 *   (the preload library's start-up and its dump included), without
 *   rcl-prof's report, which runs after it in another process.  The
 *   timer itself takes no lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t sp;
static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_nsec;
#endif
}

static void run(const char *kind, long n)
{
	if (!strcmp(kind, "mutex")) {
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&mx);
			pthread_mutex_unlock(&mx);
		}
	} else if (!strcmp(kind, "rdlock")) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_rdlock(&rw);
			pthread_rwlock_unlock(&rw);
		}
	} else if (!strcmp(kind, "wrlock")) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_wrlock(&rw);
			pthread_rwlock_unlock(&rw);
		}
	} else if (!strcmp(kind, "spin")) {
		for (long i = 0; i < n; i++) {
			pthread_spin_lock(&sp);
			pthread_spin_unlock(&sp);
		}
	} else {
		uint64_t s = 0;

		for (long i = 0; i < n; i++) {
			uint64_t a = tsc();

			s += tsc() - a;
		}
		sink = s;
	}
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* prof_overhead time COMMAND...: "time WALL CPU" (seconds); the
 * command's exit status, or 1 when it could not run or died. */
static int time_command(char **argv)
{
	double t0, wall;
	struct rusage ru;
	int status, fd[2], err = 0;
	pid_t pid;

	/* the child reports a failed exec through a close-on-exec pipe, so
	 * that no time is printed for a command that never ran */
	if (pipe2(fd, O_CLOEXEC)) {
		perror("prof_overhead: pipe2");
		return 1;
	}
	t0 = mono_s();
	pid = fork();
	if (pid < 0) {
		perror("prof_overhead: fork");
		return 1;
	}
	if (pid == 0) {
		close(fd[0]);
		execvp(argv[0], argv);
		err = errno;
		/* nothing more to do if the report cannot be written */
		(void)!write(fd[1], &err, sizeof(err));
		_exit(127);
	}
	close(fd[1]);
	if (read(fd[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
		err = 0;
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("prof_overhead: wait4");
		return 1;
	}
	wall = mono_s() - t0;
	if (err) {
		fprintf(stderr, "prof_overhead: %s: %s\n", argv[0],
			strerror(err));
		return 127;
	}
	if (!WIFEXITED(status)) {
		fprintf(stderr, "prof_overhead: %s: died of signal %d\n",
			argv[0], WTERMSIG(status));
		return 1;
	}
	printf("time %.4f %.4f\n", wall,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec +
		       (double)ru.ru_stime.tv_usec / 1e6);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	long n = 2000000, reps = 5;
	double best = 0;
	int c;

	if (argc > 2 && !strcmp(argv[1], "time"))
		return time_command(argv + 2);
	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		char *end;
		long v = strtol(optarg, &end, 10);

		if (*end || v < 1) {
			fprintf(stderr,
				"prof_overhead: -%c %s: not a positive "
				"integer\n",
				c, optarg);
			return 2;
		}
		if (c == 'n')
			n = v;
		else
			reps = v;
	}
	if (optind != argc - 1 ||
	    !strstr(" mutex rdlock wrlock spin tsc ", argv[optind]) ||
	    strchr(argv[optind], ' ') || !argv[optind][0]) {
		fprintf(stderr, "usage: prof_overhead [-n PAIRS] [-r REPS] "
				"mutex|rdlock|wrlock|spin|tsc\n"
				"       prof_overhead time COMMAND [ARG...]\n");
		return 2;
	}
	pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE);
	run(argv[optind], n / 10); /* warm-up: sites, tables, caches */
	for (long r = 0; r < reps; r++) {
		uint64_t t0 = cpu_ns();
		double ns;

		run(argv[optind], n);
		ns = (double)(cpu_ns() - t0) / (double)n;
		if (r == 0 || ns < best)
			best = ns;
	}
	printf("%s %.2f ns/pair\n", argv[optind], best);
	return 0;
}
