/* SPDX-License-Identifier: MIT */
/* expect: transformed */
/* A record declared in the section whose array member is handed out by
   decay (keep(r.tag), no `&` in the text) and read after the unlock: the
   record must outlive the section, so the caller declares it.  Before,
   it moved into the extracted function and the kept pointer dangled. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct rec { char tag[16]; int len; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static const char *kept;
static long total;

static void keep(const char *p) { kept = p; }

static void step(int i)
{
	pthread_mutex_lock(&m);
	struct rec r = { "", 0 };
	snprintf(r.tag, sizeof r.tag, "tag%d", i);
	keep(r.tag);
	r.len = (int)strlen(r.tag);
	total += r.len;
	pthread_mutex_unlock(&m);
	printf("%s %ld\n", kept, total);
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		step(i);
	return 0;
}
