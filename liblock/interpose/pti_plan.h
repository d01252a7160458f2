/* SPDX-License-Identifier: MIT */
/*
 * Co-location plans (rcl-run --colocate): which threads of the program run
 * on which CPU, so that threads that mostly share one lock run on one
 * core (FFlocker's remedy for frequent-request contention).
 *
 * The plan file, as the user writes it (or rcl-prof --colocate-plan):
 *
 *   # threads 1, 2 and 5 mostly take the cache lock
 *   cpu 0: 1 2 5
 *   cpu 1: 3 4 @worker_main
 *
 * A thread is named by its creation index (1 is the first thread the
 * program creates with pthread_create, in the order of the calls) or by
 * its start routine, @NAME (a dynamic symbol: library functions, or a
 * program linked with -rdynamic).  rcl-run checks the file before the
 * program starts and hands it to the interposer compactly in
 * $RCL_RUN_COLOCATE ("0:1,2,5;1:3,4,@worker_main"), which is parsed as
 * strictly.  Shared by rcl-run and librclrun.so (compiled into both).
 */
#ifndef PTI_PLAN_H
#define PTI_PLAN_H

#include <stddef.h>

#define PTI_PLAN_MAX 1024  /* entries (thread names) in one plan */
#define PTI_PLAN_NAME 64   /* bytes of a start routine's name, with NUL */
#define PTI_PLAN_CPUS 1024 /* CPUs a plan may name: 0 .. PTI_PLAN_CPUS-1 */
#define PTI_PLAN_ENV 16384 /* bytes of $RCL_RUN_COLOCATE, with NUL */

struct pti_plan_entry {
	int cpu;
	unsigned long index;	  /* creation index, or 0: by name */
	char name[PTI_PLAN_NAME]; /* start routine, when index is 0 */
};

struct pti_plan {
	int n;
	struct pti_plan_entry e[PTI_PLAN_MAX];
};

/* Parse the plan file @path into @p.  0, or -1 with a one-line reason
 * naming the file and line in @err. */
int pti_plan_read_file(const char *path, struct pti_plan *p, char *err,
		       size_t errlen);

/* Parse $RCL_RUN_COLOCATE's compact form.  0, or -1 with a reason. */
int pti_plan_parse_env(const char *s, struct pti_plan *p, char *err,
		       size_t errlen);

/* The compact form of @p into @buf; 0, or -1 if it does not fit. */
int pti_plan_format_env(const struct pti_plan *p, char *buf, size_t len);

/* The CPU of the thread with creation index @index and start routine
 * @name (NULL if unknown), or -1: the plan does not name it.  An index
 * entry wins over a name entry. */
int pti_plan_cpu(const struct pti_plan *p, unsigned long index,
		 const char *name);

#endif /* PTI_PLAN_H */
