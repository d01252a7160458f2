/* SPDX-License-Identifier: MIT */
/* expect: held backtrace() (it walks the stack of the thread that runs it) */
/* Lock debugging: under the lock, record the call chain of the
 * code holding it with backtrace() (owner tracking, deadlock reports),
 * here checked to contain the worker.
 * The defect it guards against: __builtin_return_address()/__builtin_frame_address()
 * hold a section (the extracted function's frame is not its caller's),
 * but backtrace() (and backtrace_symbols_fd, libunwind's unw_backtrace)
 * is not considered: delegated, under LIBLOCK_LOCK=rcl it walks the RCL
 * server thread's stack.  Expected "with 100 without 0", rewritten under
 * rcl prints "with 0 without 100" (posix/mcs keep the caller chain under
 * liblock_exec). */
/* libs: -rdynamic */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long with_worker, without;

void *worker(void *arg);

void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50; i++) {
		void *frames[16];
		int n, found = 0;
		pthread_mutex_lock(&m);
		n = backtrace(frames, 16);
		for (int k = 0; k < n; k++) {
			Dl_info info;
			if (dladdr(frames[k], &info) && info.dli_sname &&
			    strcmp(info.dli_sname, "worker") == 0)
				found = 1;
		}
		if (found)
			with_worker++;
		else
			without++;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("with %ld without %ld\n", with_worker, without);
	return without == 0 ? 0 : 1;
}
