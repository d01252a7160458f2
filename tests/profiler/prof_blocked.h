/* SPDX-License-Identifier: MIT */
/*
 * For the test programs that make a thread wait for a lock they hold
 * (prof_rwspin, prof_blame, prof_robust): instead of sleeping for a time
 * that a loaded machine can exceed before the waiter even runs, the
 * holder waits until it sees the waiter blocked in the kernel.
 *
 * The waiter publishes its thread id (prof_gettid()) just before its lock
 * call; the holder polls prof_blocked() on that id.  Once the id is
 * published, the lock is the only thing the waiter can sleep on, as long
 * as the holder takes no lock while it polls: prof_blocked() uses
 * open/read, not stdio or malloc.
 */
#ifndef PROF_BLOCKED_H
#define PROF_BLOCKED_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline pid_t prof_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Whether thread @tid of this process is blocked in a futex wait, as
 * /proc/self/task/TID/syscall says (the number of the system call it is
 * blocked in; "running" otherwise).  Where that file cannot be read, a
 * sleeping thread ('S' in .../stat) counts as blocked. */
static inline bool prof_blocked(pid_t tid)
{
	char path[64], buf[256];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			return strtol(buf, NULL, 10) == SYS_futex;
		}
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

#endif
