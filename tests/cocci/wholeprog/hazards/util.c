#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "hz.h"

_Thread_local int req_id;
jmp_buf retry_point;
static __thread unsigned nnotes;

long scale(long v)
{
	return v * 3 + 1;
}

void note(const char *what)
{
	(void)what;
	nnotes++;
}

unsigned notes_seen(void)
{
	return nnotes;
}

void bail(const char *msg)
{
	fprintf(stderr, "bail: %s\n", msg);
	exit(3);
}

void fatal(const char *msg)
{
	fprintf(stderr, "fatal: %s\n", msg);
	abort();
}

int parse_num(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

static void unwind(int depth)
{
	if (depth > 2)
		longjmp(retry_point, depth);
}

void step(int depth)
{
	unwind(depth + 1);
}
